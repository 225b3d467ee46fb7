/**
 * A record body checked against the catalogue before anything is sent: known
 * and writable fields with did-you-mean, each value (see check-value.ts), the
 * pseudo fields, required fields on create, and the family's cross-field rules
 * as far as the fields given allow (on update, rules over fields not given are
 * left to the service). Pure.
 */
import { aOrAn, findField, suggestField, type ResourceFamily, type Rule } from '../catalogue/index.js';
import { UsageError } from '../errors.js';
import { shown } from '../util/shown.js';
import { checkValue } from './check-value.js';
import type { RecordBody } from './convert.js';
import { checkRule, type WriteMode } from './rules.js';

/** Whether the body is for a new record (required fields apply) or an update of given fields. */
export type { WriteMode } from './rules.js';

function isStringList(v: unknown): boolean {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

function pseudoProblem(family: ResourceFamily, key: string, v: unknown): string | undefined {
  const kind = key === 'extdata' ? 'extdata' : 'tags';
  if (!family.writeParams.includes(kind)) {
    return `${family.name} take no ${kind === 'extdata' ? 'extension data' : 'tags'}; leave '${shown(key, 80)}' out (see 'svc describe ${family.name}')`;
  }
  if (key === 'extdata') {
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? undefined
      : `extdata takes an object of extension fields; write extdata.NAME=value (extdata.NAME:=null removes one)`;
  }
  return isStringList(v) ? undefined : `${key} on ${family.name} takes a list of tags; write ${key}=a,b or ${key}:='["a","b"]'`;
}

function keyProblem(family: ResourceFamily, key: string, v: unknown, mode: WriteMode): string | undefined {
  if (key === 'extdata' || key === 'tags' || key === '+tags' || key === '-tags') return pseudoProblem(family, key, v);
  const field = findField(family, key);
  if (!field) {
    const near = suggestField(family, key).filter((n) => findField(family, n)?.writable);
    const hint = near.length > 0 ? `did you mean '${near[0]}'?` : `see 'svc describe ${family.name}'`;
    return `unknown field '${shown(key, 80)}' on ${family.name}; ${hint}`;
  }
  if (key === 'ID') {
    return mode === 'create' ? `ID cannot be given on create; the service assigns it` : `ID cannot be changed; give the record's ID as the argument only`;
  }
  if (!field.writable) return `${family.name}.${key} is read-only (the service sets it); leave it out`;
  return checkValue(family, field, v);
}

function missingProblem(family: ResourceFamily, body: RecordBody): string | undefined {
  for (const f of family.fields) {
    if (!f.required || !f.writable || body[f.name] !== undefined) continue;
    const example = f.pattern === '^[A-Z]{3}$' ? 'EUR' : f.timestamp ? '2026-05-01T09:00' : f.ref ? 'ID' : 'VALUE';
    const about = f.note ? ` (${f.note})` : f.ref?.isFamily ? ` (${aOrAn(f.ref.family)} ID)` : '';
    return `${family.name} needs ${f.name}${about}; add ${f.name}=${example}`;
  }
  return undefined;
}

/**
 * Every problem with writing `body` to `family`, one line each naming the
 * field, the problem and the fix; empty when the body may be sent.
 */
export function validateBody(family: ResourceFamily, body: RecordBody, mode: WriteMode): string[] {
  const problems: string[] = [];
  if (!family.operations.includes(mode)) problems.push(`${family.name} is ${family.access}; it cannot be ${mode}d`);
  for (const [key, v] of Object.entries(body)) {
    const p = keyProblem(family, key, v, mode);
    if (p) problems.push(p);
  }
  if (problems.length > 0) return problems;
  if (mode === 'create') {
    const missing = missingProblem(family, body);
    if (missing) problems.push(missing);
  }
  for (const rule of family.rules as readonly Rule[]) {
    const p = checkRule(family, rule, body, mode);
    if (p) problems.push(p);
  }
  return problems;
}

/** Throws the first problem as a usage error (exit 2); nothing was sent. */
export function assertValidBody(family: ResourceFamily, body: RecordBody, mode: WriteMode): void {
  const [first] = validateBody(family, body, mode);
  if (first !== undefined) throw new UsageError(first);
}
