/**
 * The query operation (POST on a family's collection): filter, search, field
 * selection with related and extension paths, sort, paging, count, distinct,
 * expand and the admins' CSV export. Parts: parse-request (body shape),
 * filter-tree and filter-sql (conditions), paths (joins), select (SQL and
 * values), csv (export), statements (prepared-statement cache). A query's
 * patterns get a time budget (pattern-budget.ts).
 */
import type { ResourceFamily } from '../../../catalogue/index.js';
import type { SandboxContext, Session } from '../../context.js';
import { badRequest } from '../../errors.js';
import { json, text, type Reply } from '../../http/respond.js';
import { LIMITS } from '../../limits.js';
import { PatternBudgetError, withPatternBudget } from '../../pattern-budget.js';
import { visibilitySql } from '../ownership.js';
import { checkAdmin } from '../permissions.js';
import { renderCsv } from './csv.js';
import { compileFilter, compileSearch } from './filter-sql.js';
import { parseFilter } from './filter-tree.js';
import { DEFAULT_LIMIT, parseRequest, type QueryRequest } from './parse-request.js';
import { createPathResolver, type PathResolver } from './paths.js';
import { checkExpand, columnValue, runCount, runSelect, selectColumns } from './select.js';
import { SqlParams } from './sql-params.js';

function whereClause(session: Session, family: ResourceFamily, resolver: PathResolver, req: QueryRequest, params: SqlParams): string | undefined {
  const tree = parseFilter(req.filter);
  const parts = [
    visibilitySql(session, family, 'm', (v) => params.add(v)),
    tree && compileFilter(family, resolver, tree, params),
    compileSearch(family, resolver, req.terms, params),
  ];
  const present = parts.filter((p): p is string => p !== undefined);
  return present.length ? present.join(' AND ') : undefined;
}

/**
 * Runs `query` within the pattern budget (LIMITS.patternBudgetMs, or the
 * context's): compiling the filter's patterns and running its statements
 * share it. 400 naming the budget when they spend it.
 */
function withinPatternBudget<T>(ctx: SandboxContext, family: ResourceFamily, query: () => T): T {
  const ms = ctx.patternBudgetMs ?? LIMITS.patternBudgetMs;
  try {
    return withPatternBudget(ms, query);
  } catch (err) {
    if (!(err instanceof PatternBudgetError)) throw err;
    const time = `${ms / 1000} s`;
    throw badRequest(
      `the query's patterns (~ and ~~ conditions, query terms) took longer than ${time} over the ${family.name} records; ` +
        `the sandbox allows at most ${time} of pattern matching per query (use fewer or simpler patterns, or narrow the filter with indexed fields)`,
    );
  }
}

function answer(ctx: SandboxContext, session: Session, family: ResourceFamily, req: QueryRequest): Reply {
  const params = new SqlParams();
  const resolver = createPathResolver(ctx, session, family, params);
  const where = whereClause(session, family, resolver, req, params);
  if (req.count) return json({ count: runCount(ctx, family, resolver, where, params) });
  const expand = checkExpand(family, req.expand);
  const columns = selectColumns(family, resolver, req.fields);
  const limit = req.limit ?? (req.export ? undefined : DEFAULT_LIMIT);
  const rows = runSelect(ctx, family, resolver, req, columns, { where, limit }, params);
  const values = rows.map((row) => columns.map((c, i) => columnValue(ctx, c, row[i], expand)));
  if (req.export) {
    const headers = { 'Content-Disposition': `attachment; filename="${family.name}.csv"` };
    return text(renderCsv(columns.map((c) => c.name), values), 200, 'text/csv; charset=utf-8', headers);
  }
  return json(values.map((v) => Object.fromEntries(columns.map((c, i) => [c.name, v[i]]))));
}

/**
 * Runs a query for a caller whose read permission is already checked. Answers
 * 200 with an array of records (or `{count}`), or CSV for an admin's export;
 * 400 naming the problem for a malformed request or one whose patterns spend
 * the pattern budget, 403 for a non-admin export or a related path into a
 * family the caller may not read.
 */
export function runQuery(ctx: SandboxContext, session: Session, family: ResourceFamily, body: unknown): Reply {
  const req = parseRequest(body);
  if (req.export) checkAdmin(session, 'export');
  return withinPatternBudget(ctx, family, () => answer(ctx, session, family, req));
}
