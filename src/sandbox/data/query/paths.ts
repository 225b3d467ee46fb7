/**
 * Field paths of a query to SQL expressions. A path is a field of the family
 * (`lastname`), a first-degree path through a foreign key (`contact.city`:
 * LEFT JOIN of the referenced family, one alias per reference field) or an
 * extension field (`extdata.<name>`: LEFT JOIN of the instance's extension
 * table, one alias per name). Identifiers come only from the catalogue. A
 * related row joins only when the caller may see it (ownership.ts), so a
 * hidden record reads as missing in fields, filters, sorts and distinct.
 */
import { findFamily, findField, isComposite, suggestField, type ResourceFamily, type ResourceField } from '../../../catalogue/index.js';
import type { SandboxContext, Session } from '../../context.js';
import { q } from '../../db.js';
import { badRequest } from '../../errors.js';
import { LIMITS, overLimit } from '../../limits.js';
import { table } from '../../schema.js';
import { visibilitySql } from '../ownership.js';
import { checkRead } from '../permissions.js';
import type { SqlParams } from './sql-params.js';

/** The alias of the queried family's table. */
export const MAIN = q('m');

const EXTDATA = 'extdata.';

/** What a path is used for: filters and sorts need a stored scalar. */
export type PathUse = 'filter' | 'sort' | 'select';

/** A path made usable in SQL. */
export interface ResolvedPath {
  readonly path: string;
  /** The expression to compare or sort by (extension values decoded from JSON). */
  readonly sql: string;
  /** The expression to select (extension values as JSON text). */
  readonly selectSql: string;
  /** The catalogue field; undefined for extension fields, which have no declared type. */
  readonly field: ResourceField | undefined;
  readonly kind: 'field' | 'related' | 'extdata';
}

/** Resolves paths for one query and collects the joins they need. */
export interface PathResolver {
  resolve(path: string, use: PathUse): ResolvedPath;
  /** The LEFT JOIN clauses of every path resolved so far. */
  joins(): string;
}

function unknownField(family: ResourceFamily, path: string, name: string, owner: ResourceFamily = family): Error {
  const hints = suggestField(owner, name);
  const where = owner === family ? '' : ` (${owner.name} has no field '${name}')`;
  return badRequest(`unknown field '${path}' on ${family.name}${where}${hints.length ? `; did you mean '${hints.join("', '")}'?` : ''}`);
}

function checkUse(family: ResourceFamily, path: string, field: ResourceField, use: PathUse): void {
  if (use === 'select') return;
  const verb = use === 'filter' ? 'filtered' : 'sorted';
  if (isComposite(field.type)) throw badRequest(`field '${path}' on ${family.name} is a composite (${field.type}) field and cannot be ${verb}`);
  if (!field.filterable) throw badRequest(`field '${path}' on ${family.name} is not stored and cannot be ${verb}`);
}

/** What resolving a path needs: the query's context and its join list. */
interface Scope {
  readonly ctx: SandboxContext;
  readonly session: Session;
  readonly family: ResourceFamily;
  readonly params: SqlParams;
  /** Join key → alias and clause, in the order the joins were needed. */
  readonly joins: Map<string, { alias: string; sql: string }>;
}

/**
 * The quoted alias of a join, adding the join the first time it is needed;
 * `make` gets the alias both quoted and bare.
 */
function join(scope: Scope, key: string, make: (alias: string, bare: string) => string): string {
  let j = scope.joins.get(key);
  if (!j) {
    if (scope.joins.size >= LIMITS.joins) {
      throw overLimit(`the query joins more than ${LIMITS.joins} related records and extension fields`, LIMITS.joins, 'select fewer related or extdata fields');
    }
    const bare = `j${scope.joins.size}`;
    const alias = q(bare);
    j = { alias, sql: make(alias, bare) };
    scope.joins.set(key, j);
  }
  return j.alias;
}

function extdataPath(scope: Scope, path: string): ResolvedPath {
  const { ctx, family, params } = scope;
  const name = path.slice(EXTDATA.length);
  if (name === '') throw badRequest(`field path '${path}' on ${family.name} names no extension field`);
  const alias = join(scope, `x:${name}`, (a) => {
    const ext = table(ctx.instance, '_extdata');
    return `LEFT JOIN ${ext} AS ${a} ON ${a}.family = ${params.add(family.name)} AND ${a}.record = ${MAIN}."ID" AND ${a}.name = ${params.add(name)}`;
  });
  return { path, sql: `json_extract(${alias}.value, '$')`, selectSql: `${alias}.value`, field: undefined, kind: 'extdata' };
}

function relatedPath(scope: Scope, path: string, use: PathUse): ResolvedPath {
  const { family } = scope;
  const parts = path.split('.');
  const [refName = '', targetName = ''] = parts;
  const refField = findField(family, refName);
  if (!refField) throw unknownField(family, path, refName);
  if (parts.length > 2) throw badRequest(`field path '${path}' on ${family.name} goes deeper than one related record; only first-degree paths (field.field) are allowed`);
  const ref = refField.ref;
  const target = ref?.isFamily ? findFamily(ref.family) : undefined;
  if (!ref || !target) throw badRequest(`unknown field '${path}' on ${family.name}: '${refName}' does not refer to another family`);
  const field = findField(target, targetName);
  if (!field) throw unknownField(family, path, targetName, target);
  checkUse(family, path, field, use);
  checkRead(scope.session, target);
  const alias = join(scope, `r:${refName}`, (a, bare) => {
    // A related row the caller may not see joins as no row at all: its fields read as NULL everywhere.
    const visible = visibilitySql(scope.session, target, bare, (v) => scope.params.add(v));
    return `LEFT JOIN ${table(scope.ctx.instance, target.name)} AS ${a} ON ${a}.${q(ref.field)} = ${MAIN}.${q(refName)}${visible ? ` AND ${visible}` : ''}`;
  });
  const sql = `${alias}.${q(field.name)}`;
  return { path, sql, selectSql: sql, field, kind: 'related' };
}

/** A resolver for paths on `family`; joined families must be readable by the caller (403 otherwise). */
export function createPathResolver(ctx: SandboxContext, session: Session, family: ResourceFamily, params: SqlParams): PathResolver {
  const scope: Scope = { ctx, session, family, params, joins: new Map() };
  return {
    resolve(path, use) {
      if (path.startsWith(EXTDATA)) return extdataPath(scope, path);
      if (path.includes('.')) return relatedPath(scope, path, use);
      const field = findField(family, path);
      if (!field) throw unknownField(family, path, path);
      checkUse(family, path, field, use);
      const sql = `${MAIN}.${q(field.name)}`;
      return { path, sql, selectSql: sql, field, kind: 'field' };
    },
    joins: () => [...scope.joins.values()].map((j) => j.sql).join(' '),
  };
}
