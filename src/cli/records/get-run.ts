/**
 * `svc <family> get ID` (one record: one field per row on a terminal, the
 * record as the service sends it otherwise) and `exists ID` (exit 0 or 3,
 * nothing on stdout).
 */
import { connectCmd } from '../legacy.js';
import type { Command } from 'commander';
import type { ResourceFamily } from '../../catalogue/index.js';
import { ExitCode, SvcError, UsageError } from '../../errors.js';
import { connect } from '../connection.js';
import { createContext, emit } from '../legacy.js';
import type { Deps } from '../deps.js';
import { displayText, fieldOfPath } from '../../records/columns.js';

export interface GetFlags {
  expand?: string;
  extdata?: boolean;
  tags?: boolean;
  ifNoneMatch?: string;
  tz?: string;
  verbose?: boolean;
}

/** Checks a record ID: a positive whole number. */
export function parseId(text: string): string {
  if (!/^[1-9]\d{0,17}$/.test(text)) throw new UsageError(`invalid record ID '${text}'; IDs are positive whole numbers`);
  return text;
}

function detailLines(family: ResourceFamily, record: Record<string, unknown>, tz?: string): [string, string][] {
  return Object.entries(record).map(([k, v]) => {
    if (k === 'extdata' || k === 'tags') return [k, JSON.stringify(v)];
    return [k, displayText(fieldOfPath(family, k), v, tz)];
  });
}

/** `svc <family> get ID`. */
export async function runGet(self: Command, deps: Deps, family: ResourceFamily, idText: string, flags: GetFlags): Promise<void> {
  const id = parseId(idText);
  createContext(self, deps); // checks -o before anything is sent
  const query: Record<string, string[]> = {};
  if (flags.expand) query['expand[]'] = flags.expand.split(',').map((e) => e.trim()).filter(Boolean);
  for (const [flag, param] of [[flags.extdata, 'extdata'], [flags.tags, 'tags']] as const) {
    if (!flag) continue;
    if (!family.getParams.includes(param)) throw new UsageError(`${family.name} records have no ${param} to show; --${param} works on families whose get lists it (see 'svc describe ${family.name}')`);
    query[param] = ['1'];
  }
  const headers: Record<string, string> = flags.ifNoneMatch ? { 'If-None-Match': flags.ifNoneMatch } : {};
  const conn = await connectCmd(self, deps, { token: true });
  try {
    const res = await conn.client.request({ method: 'GET', root: 'api', path: `/${family.name}/${id}`, query, headers, accept: [304] });
    const etag = String(res.headers.etag ?? '');
    if (self.optsWithGlobals<{ verbose?: boolean }>().verbose && etag) deps.stderr.write(`ETag: ${etag}\n`);
    if (res.status === 304) {
      await res.body.dump();
      deps.stderr.write(`${family.name} ${id} is unchanged (ETag ${etag})\n`);
      return;
    }
    const record = await res.json<Record<string, unknown>>();
    await emit(self, deps, () => ({ kind: 'object', value: record, details: detailLines(family, record, flags.tz) }));
  } finally {
    await conn.client.close();
  }
}

/** `svc <family> exists ID`: exit 0 when it exists, 3 when not; nothing on stdout. */
export async function runExists(self: Command, deps: Deps, family: ResourceFamily, idText: string): Promise<void> {
  const id = parseId(idText);
  const conn = await connectCmd(self, deps, { token: true });
  try {
    const res = await conn.client.request({ method: 'HEAD', root: 'api', path: `/${family.name}/${id}`, accept: [404] });
    await res.body.dump();
    if (res.status === 404) throw new SvcError('', ExitCode.notFound);
  } finally {
    await conn.client.close();
  }
}
