// TRANSITION ONLY (issue 13): what sum and export still take from the old query; see src/commands/records/.
/**
 * `svc <family> query` (alias list) and `count`: builds the request, sends it
 * (one page, or every page with --all), and writes the records as they come.
 * --all pages by ID (`ID > last`, sorted +ID), so records that exist for the
 * whole run are each written once even while others change.
 */
import { connectCmd } from '../legacy.js';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { findFamily, type ResourceFamily } from '../../catalogue/index.js';
import { UsageError } from '../../errors.js';
import { withoutKey } from '../../export/encode.js';
import { idSelection, type PageQuery } from '../../export/pager.js';
import type { HttpResponse } from '../../http/client.js';
import type { Row, View } from '../../output/view.js';
import { connect, resolveTarget, type Connection, type ConnectionOptions } from '../connection.js';
import { createContext, emit, type CommandContext } from '../legacy.js';
import type { Deps } from '../deps.js';
import { readAllStdin } from '../prompt.js';
import { allFields, dataColumns, defaultSelection, tableColumns } from '../../records/columns.js';
import { parseCount, parseFields, parseSort, queryBody, type Selected } from '../../records/query-body.js';

export interface QueryFlags {
  filter?: string[];
  filterJson?: string[];
  filterFile?: string;
  fields?: string | true;
  sort?: string;
  limit?: string;
  offset?: string;
  all?: boolean;
  pageSize?: string;
  search?: string;
  distinct?: boolean;
  expand?: string;
  printRequest?: boolean;
  explain?: boolean;
  tz?: string;
}

/** A page size for the tables people read; pipes get the service's default (1000). */
const TERMINAL_LIMIT = 50;

function jsonObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${what} is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null) throw new UsageError(`${what} must be a JSON object (or a ["AND"|"OR"|"NOT", …] array)`);
  return value as Record<string, unknown>;
}

/** The filter from --filter (the language), --filter-json and --filter-file, all ANDed. */
export async function buildFilter(family: ResourceFamily, flags: QueryFlags, deps: Deps): Promise<Record<string, unknown> | undefined> {
  const parts: Record<string, unknown>[] = (flags.filterJson ?? []).map((j) => jsonObject(j, '--filter-json'));
  if (flags.filterFile) {
    const text = flags.filterFile === '-' ? await readAllStdin(deps) : readFileSync(flags.filterFile, 'utf8');
    parts.push(jsonObject(text, `--filter-file ${flags.filterFile}`));
  }
  const exprs = flags.filter ?? [];
  if (exprs.length === 0 && parts.length <= 1) return parts[0];
  const { compileFilter, combineFilters, renderFilterError } = await import('../../filter/index.js');
  for (const text of exprs) {
    const r = compileFilter(text, family, { now: deps.now(), ...(flags.tz ? { timeZone: flags.tz } : {}) });
    if (!r.ok) throw new UsageError(renderFilterError(text, r.error));
    parts.push(r.filter);
  }
  return combineFilters(parts);
}

/** A query ready to send: the body, where its filter goes, and the parts --all reuses per page. */
export interface Plan {
  readonly body: Record<string, unknown>;
  readonly filterMember: 'filter' | 'filters';
  readonly selected?: Selected[];
  readonly limit?: number;
  readonly filter?: Record<string, unknown>;
}

/** The member filters go under: the profile's choice, else `filters` (also when no instance is set up yet). */
export async function filterMemberFor(self: Command, deps: Deps): Promise<'filter' | 'filters'> {
  try {
    const { openProfiles } = await import('../../config/profiles.js');
    const target = resolveTarget(self.optsWithGlobals<ConnectionOptions>(), deps, await openProfiles(deps.configDir));
    return target.profile?.filterMember ?? 'filters';
  } catch {
    return 'filters';
  }
}

async function plan(self: Command, family: ResourceFamily, flags: QueryFlags, deps: Deps, ctx: CommandContext, count: boolean): Promise<Plan> {
  const selected = typeof flags.fields === 'string' ? parseFields(family, flags.fields, findFamily) : undefined;
  const sort = flags.sort ? parseSort(family, flags.sort) : undefined;
  if (flags.all && (sort || flags.offset)) throw new UsageError('--all pages in ID order: drop --sort and --offset (sort the output afterwards)');
  const limit = flags.limit ? parseCount('--limit', flags.limit, 1, 10000) : !flags.all && ctx.format === 'table' ? TERMINAL_LIMIT : undefined;
  const filter = await buildFilter(family, flags, deps);
  const filterMember = await filterMemberFor(self, deps);
  const body = queryBody({
    filterMember,
    count,
    ...(filter ? { filter } : {}),
    ...(selected ? { fields: selected } : {}),
    ...(sort ? { sort } : {}),
    ...(limit !== undefined ? { limit } : {}),
    ...(flags.offset ? { offset: parseCount('--offset', flags.offset, 0, Number.MAX_SAFE_INTEGER) } : {}),
    ...(flags.search ? { search: flags.search } : {}),
    ...(flags.distinct ? { distinct: true } : {}),
    ...(flags.expand ? { expand: flags.expand.split(',').map((e) => e.trim()).filter(Boolean) } : {}),
  });
  return { body, filterMember, ...(selected ? { selected } : {}), ...(limit !== undefined ? { limit } : {}), ...(filter ? { filter } : {}) };
}

/** Sends one query body to the family and parses the JSON answer. */
export async function post<T>(conn: Connection, family: ResourceFamily, body: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
  return (await queryRequest(conn, family, body, signal)).json<T>();
}

/** A query answering records, each turned by `each` as it arrives (see HttpResponse.jsonArray); `signal` stops it (Ctrl-C). */
export async function postEach<T = Row>(conn: Connection, family: ResourceFamily, body: Record<string, unknown>, each?: (row: Row) => T, signal?: AbortSignal): Promise<T[]> {
  return (await queryRequest(conn, family, body, signal)).jsonArray((element) => (each ? each(element as Row) : (element as T)));
}

/** The query operation: a POST on the family's collection, safe to repeat. */
function queryRequest(conn: Connection, family: ResourceFamily, body: Record<string, unknown>, signal?: AbortSignal): Promise<HttpResponse> {
  return conn.client.request({ method: 'POST', root: 'api', path: `/${family.name}`, json: body, idempotent: true, ...(signal ? { signal } : {}) });
}

/** Every record, page after page by ID; the ID is fetched even when --fields leaves it out (and then left out of the records). */
export async function* allPages(conn: Connection, family: ResourceFamily, p: Plan, pageSize: number): AsyncGenerator<Row> {
  const sel = idSelection(p.body.fields as PageQuery['fields']);
  let last = 0;
  for (;;) {
    const after = { ID: { '>': last } };
    const filter = p.filter ? { 0: ['AND', p.filter, after] } : after;
    const body: Record<string, unknown> = { ...p.body, [p.filterMember]: filter, sort: ['+ID'], limit: pageSize };
    if (sel.fields) body.fields = sel.fields;
    const page = await post<Row[]>(conn, family, body);
    for (const row of page) {
      last = Number(row[sel.idKey]);
      yield sel.strip ? withoutKey(row, sel.idKey) : row;
    }
    if (page.length < pageSize) return;
  }
}

function recordsView(family: ResourceFamily, ctx: CommandContext, p: Plan, rows: AsyncIterable<Row> | Row[], tz?: string): View {
  if (ctx.format === 'table') return { kind: 'records', columns: tableColumns(family, p.selected ?? defaultSelection(family), tz), rows };
  return { kind: 'records', columns: dataColumns(p.selected ?? allFields(family)), rows };
}

/** Says on stderr when a page held fewer records than match, so nothing is cut off silently. */
async function noticeTruncation(conn: Connection, family: ResourceFamily, p: Plan, shown: number, deps: Deps): Promise<void> {
  const limit = p.limit ?? 1000;
  if (shown < limit) return;
  const { count } = await post<{ count: number }>(conn, family, { ...p.body, count: true });
  const offset = Number(p.body.offset ?? 0);
  if (count > offset + shown) {
    deps.stderr.write(`svc: showing ${shown.toLocaleString('en-US')} of ${count.toLocaleString('en-US')} ${family.name} (use --all or --limit)\n`);
  }
}

/**
 * --print-request and --explain: shows the request body (or just its filter)
 * and tells the caller to send nothing. True when it did.
 */
export async function showRequestInstead(self: Command, deps: Deps, flags: QueryFlags, p: Plan): Promise<boolean> {
  if (!flags.printRequest && !flags.explain) return false;
  const shown = flags.explain ? (p.filter ?? {}) : p.body;
  await emit(self, deps, () => ({ kind: 'text', text: `${JSON.stringify(shown, null, 2)}\n` }));
  return true;
}
