/**
 * The family's cross-field rules over a record body. On create a field not
 * given has its default; on update a rule is checked only as far as the
 * fields given decide it (the rest is left to the service). Pure.
 */
import { enumNameOf, findField, type ResourceFamily, type Rule } from '../catalogue/index.js';
import type { RecordBody } from './convert.js';

/** What a body is checked for: a new record, or changes to one. */
export type WriteMode = 'create' | 'update';

/** The value a field will have: given, or (on create) its default; undefined when unknown. */
function valueOf(family: ResourceFamily, body: RecordBody, name: string, mode: WriteMode): unknown {
  if (body[name] !== undefined) return body[name];
  if (mode === 'update') return undefined;
  const field = findField(family, name);
  return field?.default === undefined ? null : field.default;
}

function isSet(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '';
}

function known(values: readonly unknown[]): boolean {
  return values.every((v) => v !== undefined);
}

function list(names: readonly string[]): string {
  return names.length === 2 ? `${names[0]} and ${names[1]}` : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

function onlyFor(family: ResourceFamily, rule: Extract<Rule, { kind: 'only-for' }>, body: RecordBody, mode: WriteMode): string | undefined {
  if (!isSet(body[rule.field])) return undefined;
  const when = valueOf(family, body, rule.when, mode);
  if (typeof when !== 'number' || rule.values.includes(when)) return undefined;
  const whenField = findField(family, rule.when);
  const name = (v: number): string => (whenField ? (enumNameOf(whenField, v) ?? String(v)) : String(v));
  const allowed = rule.values.map(name).join(', ');
  return `${family.name}.${rule.field} is allowed only when ${rule.when} is ${allowed} (it is ${name(when)}); set ${rule.when} or leave ${rule.field} out`;
}

function countRule(family: ResourceFamily, rule: Extract<Rule, { kind: 'at-most-one' | 'exactly-one' }>, body: RecordBody, mode: WriteMode): string | undefined {
  const values = rule.fields.map((f) => valueOf(family, body, f, mode));
  const set = rule.fields.filter((_, i) => isSet(values[i]));
  if (set.length > 1) return `${family.name} takes at most one of ${list(rule.fields)}, not ${list(set)}; keep one`;
  if (rule.kind === 'exactly-one' && set.length === 0 && known(values)) {
    return `${family.name} needs exactly one of ${list(rule.fields)}; add one, e.g. ${rule.fields[0]}=ID`;
  }
  return undefined;
}

/** The problem with `body` under one rule, as one line with the fix; undefined when fine or undecided. */
export function checkRule(family: ResourceFamily, rule: Rule, body: RecordBody, mode: WriteMode): string | undefined {
  switch (rule.kind) {
    case 'at-most-one':
    case 'exactly-one':
      return countRule(family, rule, body, mode);
    case 'only-for':
      return onlyFor(family, rule, body, mode);
    case 'ordered': {
      const lower = body[rule.lower];
      const upper = body[rule.upper];
      if (typeof lower !== 'number' || typeof upper !== 'number' || lower <= upper) return undefined;
      return `${family.name}.${rule.lower} must not be after ${rule.upper} (${lower} > ${upper}); swap them or fix one`;
    }
    case 'different': {
      const values = rule.fields.map((f) => body[f]);
      if (!known(values) || values.some((v) => v === null) || new Set(values).size > 1) return undefined;
      return `${family.name}: ${list(rule.fields)} must differ (both are ${String(values[0])}); give another ${rule.fields[rule.fields.length - 1]}`;
    }
    case 'one-not-empty': {
      const values = rule.fields.map((f) => valueOf(family, body, f, mode));
      if (!known(values) || values.some(isSet)) return undefined;
      return `${family.name} needs ${rule.fields.join(' or ')} not empty; add ${rule.fields[0]}=VALUE`;
    }
    default:
      return undefined;
  }
}
