/**
 * What `svc <family> watch` asks for: the user's query (filter language,
 * --filter-json, --filter-file, --search, --fields as query takes them), and
 * the fingerprint of those flags as typed that ties a cursor file to it.
 */
import { createHash } from 'node:crypto';
import type { Context } from '../../../cli/context.js';
import { queryBody } from '../../../records/query-body.js';
import type { WatchQuery } from '../../../watch/engine.js';
import { refuseReferencePaths } from '../../../records/followed-paths.js';
import { shellQuote } from '../../../util/shell-quote.js';
import { buildFilter, filterMemberOf, readFilterFile } from '../filter-flags.js';
import type { WatchOptions } from './options.js';

export interface WatchRequest {
  readonly query: WatchQuery;
  /** The `fields` member (alias → path) the user chose; absent: every field. */
  readonly fields?: Readonly<Record<string, string>>;
  /** The flags that shape the feed, as typed: a cursor file of other flags is refused. */
  readonly fingerprint: Readonly<Record<string, unknown>>;
}

export async function toWatchRequest(opts: WatchOptions, ctx: Context): Promise<WatchRequest> {
  const { filter, filterTexts } = await filterOnce(opts, ctx);
  const sha256 = (text: string): string => createHash('sha256').update(text.trim()).digest('hex');
  // One file as before (a cursor file of an older svc resumes); several as lists.
  const one = <T>(values: readonly T[]): T | readonly T[] | undefined => (values.length > 1 ? values : values[0]);
  refuseReferencePaths(opts.family, 'watch', (opts.selected ?? []).map((f) => f.path), filter);
  const filterMember = await filterMemberOf(ctx);
  const fields = opts.selected ? (queryBody({ filterMember, fields: opts.selected }).fields as Record<string, string>) : undefined;
  const given = (values: readonly string[]): readonly string[] | undefined => (values.length ? values : undefined);
  // As the flags were typed (JSON leaves out what is undefined): an option not given is absent, not empty.
  const fingerprint = JSON.parse(
    JSON.stringify({
      filter: given(opts.filter),
      filterJson: given(opts.filterJson),
      filterFile: one(opts.filterFiles),
      // What the file (or stdin) said, not only its name: a cursor file never resumes with another filter.
      filterFileSha256: one(filterTexts.map(sha256)),
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

/**
 * The filter, and the texts of --filter-file, each read once: what ties the cursor file is what the filter was
 * built from (a file changed between two reads, standard input, a FIFO or `<(command)`, can be read only once).
 */
async function filterOnce(opts: WatchOptions, ctx: Context): Promise<{ filter?: Record<string, unknown>; filterTexts: readonly string[] }> {
  const filterTexts: string[] = [];
  for (const file of opts.filterFiles) filterTexts.push(await readFilterFile(file, ctx));
  const filter = await buildFilter(opts.family, opts, ctx, filterTexts);
  return { ...(filter ? { filter } : {}), filterTexts };
}

/** The command line, for the lock file (who holds the cursor). */
export function commandText(opts: WatchOptions): string {
  const q = shellQuote;
  const parts = [`svc ${opts.family.name} watch`];
  for (const f of opts.filter) parts.push(`--filter ${q(f)}`);
  for (const f of opts.filterJson) parts.push(`--filter-json ${q(f)}`);
  for (const f of opts.filterFiles) parts.push(`--filter-file ${q(f)}`);
  if (opts.search !== undefined) parts.push(`--search ${q(opts.search)}`);
  if (opts.tz !== undefined) parts.push(`--tz ${q(opts.tz)}`);
  if (opts.fields) parts.push(`--fields ${q(opts.fields)}`);
  if (opts.cursorFile) parts.push(`--cursor-file ${q(opts.cursorFile)}`);
  return parts.join(' ');
}
