/**
 * How create, update and delete send: PUT / PATCH / DELETE on the record
 * (If-Match when asked), the service's conflict answers turned into messages
 * with the fix, and the one line on stderr saying what was done.
 */
import type { ResourceFamily } from '../../catalogue/index.js';
import type { Context } from '../../cli/context.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import type { HttpResponse } from '../../http/client.js';
import { HttpStatusError } from '../../http/errors.js';

/** What a write sends. */
export interface WriteRequest {
  readonly method: 'PUT' | 'PATCH' | 'DELETE';
  readonly json?: unknown;
  readonly ifMatch?: string | undefined;
}

/** What the service answered: the record (none after 204) and its ETag. */
export interface WriteAnswer {
  readonly record?: Record<string, unknown>;
  readonly etag?: string | undefined;
}

/** The service's answer as a message with the fix, for the statuses a write meets. */
function explain(err: unknown, family: ResourceFamily, id: string | undefined, ifMatch: string | undefined): unknown {
  if (!(err instanceof HttpStatusError)) return err;
  const what = id === undefined ? family.name : `${family.name} ${id}`;
  if (err.status === 412) return new ConflictError(`the record changed since it was read (ETag ${ifMatch ?? 'unknown'}); get it again and retry`);
  if (err.status === 404 && id !== undefined) return new NotFoundError(`${what} does not exist (or is not visible to you); check the ID`);
  if (err.status === 409 && err.method === 'DELETE') {
    return new ConflictError(`cannot delete ${what}: ${err.serviceText || 'the service refused'}; delete or change the records that depend on it first`);
  }
  return err;
}

function etagOf(res: HttpResponse): string | undefined {
  const e = res.headers.etag;
  return Array.isArray(e) ? e[0] : e;
}

/** Sends one write on the family's collection (no `id`: create) or on one record. */
export async function sendWrite(ctx: Context, family: ResourceFamily, id: string | undefined, req: WriteRequest): Promise<WriteAnswer> {
  const { client } = await ctx.connect({ token: true });
  try {
    const res = await client.request({
      method: req.method,
      root: 'api',
      path: id === undefined ? `/${family.name}` : `/${family.name}/${id}`,
      ...(req.json === undefined ? {} : { json: req.json }),
      ...(req.ifMatch === undefined ? {} : { headers: { 'if-match': req.ifMatch } }),
    });
    if (res.status === 204) {
      await res.body.dump();
      return { etag: etagOf(res) };
    }
    return { record: await res.json<Record<string, unknown>>(), etag: etagOf(res) };
  } catch (err) {
    throw explain(err, family, id, req.ifMatch);
  }
}

/** Says on stderr what was done, and with --verbose the record's new ETag. */
export function reportWrite(ctx: Context, line: string, etag: string | undefined): void {
  ctx.deps.stderr.write(`${line}\n`);
  if (etag !== undefined && ctx.globals.verbose) ctx.deps.stderr.write(`etag: ${etag}\n`);
}
