/**
 * What create, update and delete do once their arguments are read: build and
 * check the body, send PUT / PATCH / DELETE, and turn the service's conflict
 * answers into messages with the fix. Loaded only when one of them runs.
 */
import { connectCmd } from '../legacy.js';
import type { Command } from 'commander';
import type { ResourceFamily } from '../../catalogue/index.js';
import { ConflictError, NotFoundError, SvcError, UsageError } from '../../errors.js';
import { HttpStatusError } from '../../http/errors.js';
import type { HttpResponse } from '../../http/client.js';
import { emit } from '../legacy.js';
import { connect, type ConnectionOptions } from '../connection.js';
import type { Deps } from '../deps.js';
import { ask, canPrompt } from '../prompt.js';
import { recordView } from './record-view.js';
import { buildBody, type BodyOptions } from './write-input.js';

/** Options of update and delete beyond the body. */
export interface WriteFlags extends BodyOptions {
  ifMatch?: string;
  yes?: boolean;
}

/** The record ID argument as a path segment; a usage error unless a whole number. */
export function parseId(family: ResourceFamily, text: string): string {
  if (!/^\d{1,18}$/.test(text)) throw new UsageError(`invalid ID '${text}' for ${family.name}; give the record's whole-number ID`);
  return text;
}

function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
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

async function send(
  self: Command,
  deps: Deps,
  family: ResourceFamily,
  id: string | undefined,
  spec: { method: 'PUT' | 'PATCH' | 'DELETE'; json?: unknown; ifMatch?: string | undefined },
): Promise<{ record?: Record<string, unknown>; etag?: string | undefined }> {
  const conn = await connectCmd(self, deps, { token: true });
  try {
    const res = await conn.client.request({
      method: spec.method,
      root: 'api',
      path: id === undefined ? `/${family.name}` : `/${family.name}/${id}`,
      ...(spec.json === undefined ? {} : { json: spec.json }),
      ...(spec.ifMatch === undefined ? {} : { headers: { 'if-match': spec.ifMatch } }),
    });
    if (res.status === 204) {
      await res.body.dump();
      return { etag: etagOf(res) };
    }
    return { record: await res.json<Record<string, unknown>>(), etag: etagOf(res) };
  } catch (err) {
    throw explain(err, family, id, spec.ifMatch);
  } finally {
    await conn.client.close();
  }
}

function report(self: Command, deps: Deps, line: string, etag: string | undefined): void {
  deps.stderr.write(`${line}\n`);
  if (etag !== undefined && self.optsWithGlobals<ConnectionOptions>().verbose) deps.stderr.write(`etag: ${etag}\n`);
}

/** `svc <family> create field=value…`: PUT, then the created record and its new ID. */
export async function runCreate(self: Command, deps: Deps, family: ResourceFamily, words: string[], opts: BodyOptions): Promise<void> {
  const body = await buildBody(family, words, opts, deps, 'create', commandPath(self));
  await emit(self, deps, async () => {
    const { record, etag } = await send(self, deps, family, undefined, { method: 'PUT', json: body });
    const created = record ?? {};
    report(self, deps, `created ${family.name} ${String(created.ID ?? '')}`.trimEnd(), etag);
    return recordView(family, created);
  });
}

/** `svc <family> update ID field=value…`: PATCH (If-Match with --if-match), then the updated record. */
export async function runUpdate(self: Command, deps: Deps, family: ResourceFamily, idText: string, words: string[], opts: WriteFlags): Promise<void> {
  const id = parseId(family, idText);
  const body = await buildBody(family, words, opts, deps, 'update', commandPath(self));
  await emit(self, deps, async () => {
    const { record, etag } = await send(self, deps, family, id, { method: 'PATCH', json: body, ifMatch: opts.ifMatch });
    report(self, deps, `updated ${family.name} ${id}`, etag);
    return recordView(family, record ?? {});
  });
}

async function confirmed(deps: Deps, what: string, yes: boolean | undefined): Promise<boolean> {
  if (yes) return true;
  if (!canPrompt(deps)) throw new UsageError(`delete ${what} needs confirmation and there is no terminal to ask on; pass --yes`);
  const answer = (await ask(deps, `delete ${what}? [y/N]`)).toLowerCase();
  return answer === 'y' || answer === 'yes';
}

/** `svc <family> delete ID`: asks on a terminal unless --yes, refuses without one; DELETE (If-Match with --if-match). */
export async function runDelete(self: Command, deps: Deps, family: ResourceFamily, idText: string, opts: WriteFlags): Promise<void> {
  const id = parseId(family, idText);
  const what = `${family.name} ${id}`;
  if (!(await confirmed(deps, what, opts.yes))) throw new SvcError(`not deleted: ${what} was kept (answer y to delete it, or pass --yes)`);
  const { etag } = await send(self, deps, family, id, { method: 'DELETE', ifMatch: opts.ifMatch });
  report(self, deps, `deleted ${what}`, etag);
}
