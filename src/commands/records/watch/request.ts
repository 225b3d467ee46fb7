/**
 * What `svc <family> watch` asks for: the user's query (filter language,
 * --filter-json, --filter-file, --search, --fields as query takes them), and
 * the fingerprint of those flags as typed that ties a cursor file to it.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Context } from '../../../cli/context.js';
import { queryBody } from '../../../records/query-body.js';
import type { WatchQuery } from '../../../watch/engine.js';
import { refuseReferencePaths } from '../../../records/followed-paths.js';
import { shellQuote } from '../../../util/shell-quote.js';
import { buildFilter, filterMemberOf } from '../filter-flags.js';
import type { WatchOptions } from './options.js';

export interface WatchRequest {
  readonly query: WatchQuery;
  /** The `fields` member (alias → path) the user chose; absent: every field. */
  readonly fields?: Readonly<Record<string, string>>;
  /** The flags that shape the feed, as typed: a cursor file of other flags is refused. */
  readonly fingerprint: Readonly<Record<string, unknown>>;
}

export async function toWatchRequest(opts: WatchOptions, ctx: Context): Promise<WatchRequest> {
  const filter = await buildFilter(opts.family, opts, ctx);
  refuseReferencePaths(opts.family, 'watch', (opts.selected ?? []).map((f) => f.path), filter);
  const filterMember = await filterMemberOf(ctx);
  const fields = opts.selected ? (queryBody({ filterMember, fields: opts.selected }).fields as Record<string, string>) : undefined;
  const given = (values: readonly string[]): readonly string[] | undefined => (values.length ? values : undefined);
  // As the flags were typed (JSON leaves out what is undefined): an option not given is absent, not empty.
  const fingerprint = JSON.parse(
    JSON.stringify({
      filter: given(opts.filter),
      filterJson: given(opts.filterJson),
      filterFile: opts.filterFile,
      // What the file said, not only its name: a cursor file never resumes with another filter.
      filterFileSha256: opts.filterFile !== undefined && opts.filterFile !== '-' ? createHash('sha256').update(readFileSync(opts.filterFile, 'utf8').trim()).digest('hex') : undefined,
      search: opts.search,
      tz: opts.tz,
      fields: opts.fields,
      filterMember,
    }),
  ) as Record<string, unknown>;
  return {
    query: { filterMember, ...(filter ? { filter } : {}), ...(opts.search ? { search: opts.search } : {}) },
    ...(fields ? { fields } : {}),
    fingerprint,
  };
}

/** The command line, for the lock file (who holds the cursor). */
export function commandText(opts: WatchOptions): string {
  const q = shellQuote;
  const parts = [`svc ${opts.family.name} watch`];
  for (const f of opts.filter) parts.push(`--filter ${q(f)}`);
  for (const f of opts.filterJson) parts.push(`--filter-json ${q(f)}`);
  if (opts.filterFile) parts.push(`--filter-file ${q(opts.filterFile)}`);
  if (opts.search !== undefined) parts.push(`--search ${q(opts.search)}`);
  if (opts.tz !== undefined) parts.push(`--tz ${q(opts.tz)}`);
  if (opts.fields) parts.push(`--fields ${q(opts.fields)}`);
  if (opts.cursorFile) parts.push(`--cursor-file ${q(opts.cursorFile)}`);
  return parts.join(' ');
}
