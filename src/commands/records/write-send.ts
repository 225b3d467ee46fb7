/**
 * How create, update and delete send: PUT / PATCH / DELETE on the record
 * (If-Match when asked), the service's conflict answers turned into messages
 * with the fix, and the one line on stderr saying what was done.
 */
import type { ResourceFamily } from '../../catalogue/index.js';
import type { Context } from '../../cli/context.js';
import { ConflictError, NotFoundError, UsageError } from '../../errors.js';
import type { HttpClient, HttpResponse } from '../../http/client.js';
import { HttpStatusError } from '../../http/errors.js';

/** What a write sends. */
export interface WriteRequest {
  readonly method: 'PUT' | 'PATCH' | 'DELETE';
  readonly json?: unknown;
  readonly ifMatch?: string | undefined;
  /**
   * Safe to send twice, so the client may retry it after a failure (a PATCH of
   * absolute values is; a create never). Default: the client's rule.
   */
  readonly idempotent?: boolean;
  /** Stops the request (the grace period after Ctrl-C in bulk writes). */
  readonly signal?: AbortSignal;
}

/** What the service answered: the record (none after 204) and its ETag. */
export interface WriteAnswer {
  readonly status?: number;
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

/** The first ETag header of an answer; undefined when it has none (or an empty one). */
export function etagOf(res: HttpResponse): string | undefined {
  const e = res.headers.etag;
  const first = Array.isArray(e) ? e[0] : e;
  return first?.trim() ? first : undefined;
}

/** The path of the family's collection (no `id`: create) or of one record. */
export function writePath(family: ResourceFamily, id: string | undefined): string {
  return id === undefined ? `/${family.name}` : `/${family.name}/${id}`;
}

/**
 * Sends one write and reads its answer; error statuses are thrown as the
 * client's HttpStatusError (with the status), network failures as its
 * NetworkError: for callers that report each record's outcome themselves.
 */
export async function writeRecord(client: HttpClient, family: ResourceFamily, id: string | undefined, req: WriteRequest): Promise<WriteAnswer> {
  // An empty If-Match is no precondition to a server that ignores it: never sent.
  if (req.ifMatch !== undefined && !req.ifMatch.trim()) throw new UsageError('an empty If-Match is no precondition; give the ETag the record was read with');
  const res = await client.request({
    method: req.method,
    root: 'api',
    path: writePath(family, id),
    ...(req.json === undefined ? {} : { json: req.json }),
    ...(req.ifMatch === undefined ? {} : { headers: { 'if-match': req.ifMatch } }),
    ...(req.idempotent === undefined ? {} : { idempotent: req.idempotent }),
    ...(req.signal ? { signal: req.signal } : {}),
  });
  if (res.status === 204) {
    await res.body.dump();
    return { status: 204, etag: etagOf(res) };
  }
  return { status: res.status, record: await res.json<Record<string, unknown>>(), etag: etagOf(res) };
}

/** Sends one write on the family's collection (no `id`: create) or on one record; a failure is an error with the fix. */
export async function sendWrite(ctx: Context, family: ResourceFamily, id: string | undefined, req: WriteRequest): Promise<WriteAnswer> {
  const { client } = await ctx.connect({ token: true });
  try {
    return await writeRecord(client, family, id, req);
  } catch (err) {
    throw explain(err, family, id, req.ifMatch);
  }
}

/** Says on stderr what was done, and with --verbose the record's new ETag. */
export function reportWrite(ctx: Context, line: string, etag: string | undefined): void {
  ctx.deps.stderr.write(`${line}\n`);
  if (etag !== undefined && ctx.globals.verbose) ctx.deps.stderr.write(`etag: ${etag}\n`);
}
