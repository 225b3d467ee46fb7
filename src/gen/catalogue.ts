import type {
  Access,
  Catalogue,
  Dependency,
  Family,
  Operation,
  PermissionRule,
  Rule,
} from '../catalogue/types.js';
import { parseTableCheck, parseUnique } from './checks.js';
import { dbOnlyFields } from './db-only-fields.js';
import { buildField } from './fields.js';
import type { ApiDocument, ApiOperation, DbDocument, DbTable } from './spec-types.js';

const ACCESS_MARKERS: readonly Access[] = [
  'developer read-only',
  'restricted read-only',
  'admin read-only',
  'read-only',
];

const COLLECTION_OPS: Record<string, Operation> = { post: 'list', put: 'create' };
const RECORD_OPS: Record<string, Operation> = { get: 'get', head: 'exists', patch: 'update', delete: 'delete' };
const OP_ORDER: readonly Operation[] = ['list', 'get', 'exists', 'create', 'update', 'delete'];

/** Splits a tag description into the family's title and its access marker. */
export function parseTag(description: string): { title: string; access: Access } {
  const marker = /\*\(([^)]*)\)\*/.exec(description)?.[1];
  const access = ACCESS_MARKERS.find((a) => a === marker) ?? 'read-write';
  return { title: description.replace(/\s*\*\([^)]*\)\*\s*/, '').trim(), access };
}

/** Reads the permission an operation requires from its description. */
export function parsePermission(description: string): PermissionRule {
  const sentence = /Requires [^.]*\./.exec(description)?.[0] ?? '';
  if (/no specific permission/.test(sentence)) return { anyOf: [], writable: false, creatorOnly: false };
  const creatorOnly = /user to be the `creator`/.test(sentence);
  const namesPart = sentence.split(/ permission/)[0] ?? '';
  const anyOf = creatorOnly && !/ permission/.test(sentence)
    ? []
    : [...namesPart.matchAll(/`([a-z0-9_]+)`/g)].map((m) => m[1] ?? '');
  return { anyOf, writable: /^Requires writable /.test(sentence), creatorOnly };
}

/** Reads the parent fields of "Has dependency on `a` or `b`". */
export function parseDependencyFields(description: string): string[] {
  const clause = /Has dependency on ([^.]*)/.exec(description)?.[1] ?? '';
  return [...clause.matchAll(/`([a-z0-9_]+)`/g)].map((m) => m[1] ?? '');
}

function operationsOf(api: ApiDocument, name: string): Map<Operation, ApiOperation> {
  const ops = new Map<Operation, ApiOperation>();
  const add = (path: string, table: Record<string, Operation>): void => {
    for (const [method, op] of Object.entries(api.paths[path] ?? {})) {
      const kind = table[method];
      if (kind) ops.set(kind, op);
    }
  };
  add(`/${name}`, COLLECTION_OPS);
  add(`/${name}/{ID}`, RECORD_OPS);
  return ops;
}

function getParamsOf(op: ApiOperation | undefined): Family['getParams'] {
  const names = (op?.parameters ?? []).map((p) => p.$ref?.split('/').pop() ?? p.name ?? '');
  return (['expand', 'extdata', 'tags'] as const).filter((n) => names.includes(n));
}

function refTail(ref: string | undefined): string {
  return ref?.split('/').pop() ?? '';
}

/**
 * The pseudo fields a family's create and update bodies offer: the body schema
 * is the family's schema combined (allOf) with `extdata-field` and/or `tags-field`.
 */
export function writeParamsOf(api: ApiDocument, op: ApiOperation | undefined): Family['writeParams'] {
  const body = op?.requestBody?.$ref ? api.components.requestBodies?.[refTail(op.requestBody.$ref)] : op?.requestBody;
  const schema = body?.content?.['application/json']?.schema;
  const resolved = schema?.$ref ? api.components.schemas[refTail(schema.$ref)] : schema;
  const parts = (resolved?.allOf ?? []).map((p) => refTail(p.$ref));
  return (['extdata', 'tags'] as const).filter((n) => parts.includes(`${n}-field`));
}

function rulesOf(table: DbTable | undefined): { rules: Rule[]; unique: string[][] } {
  const rules: Rule[] = [];
  const unique: string[][] = [];
  for (const c of table?.constraints ?? []) {
    if (c.type === 'check' && !c.domain) rules.push(...parseTableCheck(c.def));
    if (c.type === 'unique') {
      const cols = parseUnique(c.def);
      if (cols) unique.push(cols);
    }
  }
  return { rules, unique };
}

function buildFamily(api: ApiDocument, db: DbDocument, tag: { name: string; description?: string }, families: ReadonlySet<string>): Family {
  const { name } = tag;
  const { title, access } = parseTag(tag.description ?? name);
  const ops = operationsOf(api, name);
  const list = ops.get('list');
  if (!list) throw new Error(`family ${name} has no list operation`);
  const writeOp = ops.get('create') ?? ops.get('update') ?? ops.get('delete');
  const schema = api.components.schemas[name];
  if (!schema?.properties) throw new Error(`family ${name} has no schema`);
  const table = db.find((t) => t.name === name && t.type === 'table');
  const writable = ops.has('create') || ops.has('update');
  const fields = [
    ...Object.entries(schema.properties).map(([fname, p]) => buildField(fname, p, table, { writable, families })),
    ...dbOnlyFields(name, table, { writable, families }),
  ];
  const dependsOn: Dependency[] = parseDependencyFields(list.description ?? '').map((field) => ({
    field,
    family: fields.find((f) => f.name === field)?.ref?.family ?? field,
  }));
  return {
    name,
    title,
    idType: fields.find((f) => f.name === 'ID')?.type === 'int64' ? 'int64' : 'int32',
    access,
    operations: OP_ORDER.filter((o) => ops.has(o)),
    permissions: {
      read: parsePermission(list.description ?? ''),
      write: writeOp ? parsePermission(writeOp.description ?? '') : null,
    },
    dependsOn,
    getParams: getParamsOf(ops.get('get')),
    writeParams: writeParamsOf(api, ops.get('create') ?? ops.get('update')),
    fields,
    ...rulesOf(table),
  };
}

/** Builds the whole catalogue from the two vendor documents. Pure: same input, same output. */
export function buildCatalogue(api: ApiDocument, db: DbDocument): Catalogue {
  const tags = api.tags.filter((t) => api.components.schemas[t.name] && api.paths[`/${t.name}`]);
  const names = new Set(tags.map((t) => t.name));
  return { families: tags.map((t) => buildFamily(api, db, t, names)) };
}
