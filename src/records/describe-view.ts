/**
 * The explanation of a resource or a field (`svc describe`, `svc <family>
 * describe`, `svc <family> query --fields`): the path resolved against the
 * catalogue, then rendered as a view. Shared by several commands, so it lives
 * outside src/commands; the verbs it lists come from the plain table of
 * ./verbs.ts, not from the commands.
 */
import {
  findFamily,
  findField,
  suggestFamily,
  suggestField,
  type ResourceFamily,
  type ResourceField,
} from '../catalogue/index.js';
import { UsageError } from '../errors.js';
import { shown } from '../util/shown.js';
import type { Column, ObjectView, Row } from '../output/view.js';
import {
  constraintLabel,
  defaultLabel,
  dependencyLabel,
  permissionLabel,
  refLabel,
  ruleLabel,
  yes,
} from './labels.js';
import { verbsOf } from './verbs.js';

/** Finds a family by name or fails with a did-you-mean. */
export function requireFamily(name: string): ResourceFamily {
  const family = findFamily(name);
  if (family) return family;
  const near = suggestFamily(name)[0];
  const hint = near ? `; did you mean '${near}'?` : '';
  throw new UsageError(`unknown resource '${shown(name, 80)}'${hint} (run 'svc resources' for the list)`);
}

function requireField(family: ResourceFamily, name: string): ResourceField {
  const field = findField(family, name);
  if (field) return field;
  const near = suggestField(family, name)[0];
  const hint = near ? `; did you mean '${near}'?` : '';
  throw new UsageError(`unknown field '${shown(name, 80)}' on ${family.name}${hint} (run 'svc describe ${family.name}')`);
}

/**
 * Resolves `family`, `family.field` or a path through references such as
 * `accounts.contact.city` (the contact's city).
 */
export function resolvePath(path: string): { family: ResourceFamily; field?: ResourceField; via: string[] } {
  const parts = path.split('.');
  const empty = parts.indexOf('');
  if (parts.length > 1 && empty >= 0) {
    const where = empty === 0 ? 'starts with a dot: give the resource first' : empty === parts.length - 1 ? 'ends with a dot: give a field after it' : 'has two dots in a row: give one field between them';
    throw new UsageError(`'${shown(path, 80)}' ${where}, as RESOURCE or RESOURCE.FIELD (e.g. accounts.lastname)`);
  }
  const [head = '', ...rest] = parts;
  let family = requireFamily(head);
  const via: string[] = [];
  let field: ResourceField | undefined;
  for (const [i, part] of rest.entries()) {
    if (field) {
      if (!field.ref?.isFamily) {
        throw new UsageError(`field '${field.name}' on ${family.name} references no resource, so '${shown(part, 80)}' cannot follow it`);
      }
      family = requireFamily(field.ref.family);
    }
    field = requireField(family, part);
    via.push(part);
    if (i === rest.length - 1) break;
  }
  return field ? { family, field, via } : { family, via };
}

const fieldColumns: readonly Column[] = [
  { key: 'name' },
  { key: 'type' },
  { key: 'nullable', header: 'null', text: (v) => yes(v === true) },
  { key: 'default', text: (_v, row) => defaultLabel(row as unknown as ResourceField) },
  { key: 'ref', text: (_v, row) => refLabel(row as unknown as ResourceField) },
  { key: 'writable', header: 'write', text: (v) => yes(v === true) },
  { key: 'required', header: 'req', text: (v) => yes(v === true) },
  { key: 'filterable', header: 'filter', text: (v) => yes(v === true) },
  { key: 'constraints', text: (_v, row) => constraintLabel(row as unknown as ResourceField) },
  { key: 'note', text: (v) => (typeof v === 'string' ? v : '') },
];

/** `svc describe <family>`: the family's facts, then one row per field. */
export function describeFamilyView(family: ResourceFamily): ObjectView {
  const verbs = verbsOf(family);
  const details: [string, string][] = [
    ['Resource', `${family.name} (${family.title})`],
    ['Access', family.access],
    ['ID type', family.idType],
    ['Verbs', verbs.join(', ')],
    ['Read permission', permissionLabel(family.permissions.read)],
    ['Write permission', permissionLabel(family.permissions.write)],
    ['Depends on', dependencyLabel(family.dependsOn)],
    ['Get options', family.getParams.length ? family.getParams.join(', ') : '-'],
    ['Default columns', family.defaultColumns.join(', ')],
  ];
  for (const rule of family.rules) details.push(['Rule', ruleLabel(rule)]);
  for (const u of family.unique) details.push(['Unique', u.join(', ')]);
  return {
    kind: 'object',
    value: { ...family, verbs },
    details,
    table: { title: 'Fields', columns: fieldColumns, rows: family.fields as unknown as Row[] },
  };
}

/** `svc describe <family>.<field>`: every fact about one field. */
export function describeFieldView(family: ResourceFamily, field: ResourceField, path: string): ObjectView {
  const details: [string, string][] = [
    ['Field', path],
    ['Resource', family.name],
    ['Type', field.type],
    ['Nullable', field.nullable ? 'yes' : 'no'],
    ['Default', defaultLabel(field) || '-'],
  ];
  if (field.enum) {
    for (const e of field.enum) details.push(['Value', e.name ? `${e.value} ${e.name}` : JSON.stringify(e.value)]);
  }
  const limits = field.enum ? constraintLabel({ ...field, enum: undefined } as ResourceField) : constraintLabel(field);
  if (limits) details.push(['Constraints', limits]);
  if (field.ref) details.push(['References', `${refLabel(field)}${field.ref.isFamily ? '' : ' (internal table)'}`]);
  details.push(
    ['Writable', field.writable ? 'yes' : 'no'],
    ['Required', field.required ? 'yes (NOT NULL, no default)' : 'no'],
    ['Filterable', field.filterable ? 'yes' : 'no'],
    ['Indexed', field.indexed ? 'yes' : 'no'],
  );
  for (const rule of family.rules) {
    const names = 'fields' in rule ? rule.fields : 'field' in rule ? [rule.field, rule.when] : 'lower' in rule ? [rule.lower, rule.upper] : [];
    if (names.includes(field.name)) details.push(['Rule', ruleLabel(rule)]);
  }
  if (field.note) details.push(['Note', field.note]);
  return { kind: 'object', value: { resource: family.name, ...field }, details };
}

/** Dispatches on the path: a family or one of its (possibly referenced) fields. */
export function describeView(path: string): ObjectView {
  const { family, field } = resolvePath(path);
  return field ? describeFieldView(family, field, path) : describeFamilyView(family);
}
