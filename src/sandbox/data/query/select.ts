/**
 * The SELECT of a query: the selected columns, the order, the page, and the
 * rows turned into values as the API shows them. Without a sort the order is
 * by ID (stable paging); a sort always ends with ID as a tie-breaker. NULLs
 * sort as PostgreSQL sorts them: last when ascending, first when descending.
 */
import type { ResourceFamily } from '../../../catalogue/index.js';
import type { SandboxContext } from '../../context.js';
import { badRequest } from '../../errors.js';
import { table } from '../../schema.js';
import { expandable, fieldValue } from '../serialize.js';
import type { QueryRequest, Selection } from './parse-request.js';
import { MAIN, type PathResolver, type ResolvedPath } from './paths.js';
import type { SqlParams } from './sql-params.js';
import { prepareCached } from './statements.js';

/** A selected column: the member name and the path behind it. */
export interface Column {
  readonly name: string;
  readonly target: ResolvedPath;
}

/** The selected columns of a request (every field of the family by default). */
export function selectColumns(family: ResourceFamily, resolver: PathResolver, fields: readonly Selection[] | undefined): Column[] {
  const list = fields ?? family.fields.map((f) => ({ name: f.name, path: f.name }));
  return list.map((s) => ({ name: s.name, target: resolver.resolve(s.path, 'select') }));
}

/** The expand names of a request, checked against the family's expandable fields. */
export function checkExpand(family: ResourceFamily, names: readonly string[]): Set<string> {
  const allowed = new Set(expandable(family).map((f) => f.name));
  for (const name of names) {
    if (!allowed.has(name)) throw badRequest(`cannot expand '${name}' on ${family.name}; expandable: ${[...allowed].join(', ') || 'none'}`);
  }
  return new Set(names);
}

function direction(target: ResolvedPath, descending: boolean): string {
  // A NOT NULL column needs no NULLS clause, which keeps its index usable for the order.
  if (target.kind === 'field' && target.field && !target.field.nullable) return descending ? 'DESC' : 'ASC';
  return descending ? 'DESC NULLS FIRST' : 'ASC NULLS LAST';
}

function orderBy(resolver: PathResolver, req: QueryRequest, columns: readonly Column[]): string {
  if (req.distinct) {
    if (req.sort.length === 0) return columns.map((_, i) => `"c${i}" ASC NULLS LAST`).join(', ');
    return req.sort
      .map((s) => {
        const i = columns.findIndex((c) => c.target.path === s.path);
        if (i < 0) throw badRequest(`with distinct, sort only by selected fields: '${s.path}' is not selected`);
        return `"c${i}" ${s.descending ? 'DESC NULLS FIRST' : 'ASC NULLS LAST'}`;
      })
      .join(', ');
  }
  const keys = req.sort.map((s) => {
    const target = resolver.resolve(s.path, 'sort');
    return `${target.sql} ${direction(target, s.descending)}`;
  });
  if (!req.sort.some((s) => s.path === 'ID')) keys.push(`${MAIN}."ID" ASC`);
  return keys.join(', ');
}

/** What a select needs beside the columns. */
export interface SelectPlan {
  readonly where: string | undefined;
  readonly limit: number | undefined;
}

/** Runs the select and returns raw rows, one array of column values per record. */
export function runSelect(
  ctx: SandboxContext,
  family: ResourceFamily,
  resolver: PathResolver,
  req: QueryRequest,
  columns: readonly Column[],
  plan: SelectPlan,
  params: SqlParams,
): unknown[][] {
  const list = columns.map((c, i) => `${c.target.selectSql} AS "c${i}"`).join(', ');
  const order = orderBy(resolver, req, columns); // Before the joins: a sort path may add one.
  const page = `LIMIT ${params.add(plan.limit ?? -1)} OFFSET ${params.add(req.offset)}`;
  const where = plan.where ? ` WHERE ${plan.where}` : '';
  const sql = `SELECT ${req.distinct ? 'DISTINCT ' : ''}${list} FROM ${table(ctx.instance, family.name)} AS ${MAIN} ${resolver.joins()}${where} ORDER BY ${order} ${page}`;
  const stmt = prepareCached(ctx.db, sql);
  return stmt.raw(true).all(params.values) as unknown[][];
}

/** Counts the records matching a condition. */
export function runCount(ctx: SandboxContext, family: ResourceFamily, resolver: PathResolver, where: string | undefined, params: SqlParams): number {
  const sql = `SELECT count(*) FROM ${table(ctx.instance, family.name)} AS ${MAIN} ${resolver.joins()}${where ? ` WHERE ${where}` : ''}`;
  const stmt = prepareCached(ctx.db, sql);
  return Number(stmt.pluck(true).get(params.values));
}

function decodeJson(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? null;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** One selected value as the API shows it: fields through the serializer, extension values decoded. */
export function columnValue(ctx: SandboxContext, column: Column, value: unknown, expand: ReadonlySet<string>): unknown {
  const { target } = column;
  if (target.kind === 'extdata') return decodeJson(value);
  if (target.kind === 'field' && target.field) return fieldValue(ctx, target.field, value, expand);
  return value ?? null;
}
