/**
 * One value against its field's facts in the catalogue: null, JSON type,
 * integer width, flag, enum, bounds, length, pattern, text rules and JSON
 * kind. Pure; returns the problem as one line, or undefined.
 */
import { isComposite, type ResourceFamily, type ResourceField } from '../catalogue/index.js';
import { shown } from '../util/shown.js';

const INT_RANGE: Record<string, readonly [number, number]> = {
  int16: [-32768, 32767],
  int32: [-2147483648, 2147483647],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

function show(v: unknown): string {
  let text: string;
  try {
    text = typeof v === 'string' ? `'${v}'` : JSON.stringify(v);
  } catch {
    // Nested deeper than JSON.stringify's stack allows.
    text = 'a deeply nested value';
  }
  return shown(text, 40);
}

function enumList(field: ResourceField): string {
  return (field.enum ?? []).map((e) => (e.name ? `${e.name} (${String(e.value)})` : String(e.value))).join(', ');
}

function typeProblem(where: string, field: ResourceField, v: unknown): string | undefined {
  const range = INT_RANGE[field.type];
  if (range) {
    if (typeof v !== 'number' || !Number.isInteger(v)) return `${where} takes a whole number, not ${show(v)}`;
    if (v < range[0] || v > range[1]) return `${where} is ${field.type}: ${v} is out of range ${range[0]}..${range[1]}`;
    return undefined;
  }
  switch (field.type) {
    case 'flag':
      return v === 0 || v === 1 || typeof v === 'boolean' ? undefined : `${where} is a flag; use 0 or 1, not ${show(v)}`;
    case 'double':
      if (typeof v === 'number' && !Number.isNaN(v) && !Number.isFinite(v)) return `${where} is out of range: it is beyond what a number can hold (about ±1.8e308)`;
      return typeof v === 'number' && Number.isFinite(v) ? undefined : `${where} takes a number, not ${show(v)}`;
    case 'string':
      return typeof v === 'string' ? undefined : `${where} takes text, not ${show(v)}; quote it (${field.name}=text sends a string)`;
    default:
      return undefined;
  }
}

function numberProblem(where: string, field: ResourceField, v: number): string | undefined {
  if (field.minimum !== undefined && v < field.minimum) return `${where} must be at least ${field.minimum}, not ${v}`;
  if (field.maximum !== undefined && v > field.maximum) return `${where} must be at most ${field.maximum}, not ${v}`;
  if (field.exclusiveMinimum !== undefined && v <= field.exclusiveMinimum) return `${where} must be greater than ${field.exclusiveMinimum}, not ${v}`;
  if (field.exclusiveMaximum !== undefined && v >= field.exclusiveMaximum) return `${where} must be less than ${field.exclusiveMaximum}, not ${v}`;
  return undefined;
}

function textProblem(where: string, field: ResourceField, v: string): string | undefined {
  const length = [...v].length;
  if (field.minLength !== undefined && length < field.minLength) {
    return field.minLength === 1 ? `${where} cannot be empty; give it a value` : `${where} needs at least ${field.minLength} characters`;
  }
  if (field.maxLength !== undefined && length > field.maxLength) return `${where} has ${length} characters; at most ${field.maxLength} are allowed`;
  if (field.pattern !== undefined && !new RegExp(field.pattern).test(v)) {
    return `${where} must match ${field.pattern}, not ${show(v)}${field.note ? ` (${field.note})` : ''}`;
  }
  if (field.text === 'single-line' && /[\r\n]/.test(v)) return `${where} must be one line; remove the line breaks`;
  if (field.text && /^[ \t\v\r\n]|[ \t\v\r\n]$/.test(v)) return `${where} cannot start or end with blanks; trim ${show(v)}`;
  return undefined;
}

function jsonProblem(where: string, field: ResourceField, v: unknown): string | undefined {
  let value = v;
  if (typeof v === 'string') {
    try {
      value = JSON.parse(v) as unknown;
    } catch {
      return `${where} takes JSON (${field.type}), not ${show(v)}`;
    }
  }
  if (!field.jsonKind) return undefined;
  const kind = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  return field.jsonKind.includes(kind) ? undefined : `${where} takes a JSON ${field.jsonKind.join(' or ')}, not ${kind}`;
}

/** The problem with writing `v` to `field`, as one line naming the field and the fix; undefined when fine. */
export function checkValue(family: ResourceFamily, field: ResourceField, v: unknown): string | undefined {
  const where = `${family.name}.${field.name}`;
  if (v === null) return field.nullable ? undefined : `${where} cannot be null; give it a value`;
  const typed = typeProblem(where, field, v);
  if (typed) return typed;
  if (field.enum && !field.enum.some((e) => e.value === v || (typeof v === 'boolean' && e.value === Number(v)))) {
    return `${where} does not take ${show(v)}; use one of ${enumList(field)}`;
  }
  if (typeof v === 'number') return numberProblem(where, field, v);
  if (typeof v === 'string' && field.type === 'string') return textProblem(where, field, v);
  if (field.type === 'binfile') {
    const o = v as { content?: unknown; uri?: unknown };
    return typeof v === 'object' && (typeof o.content === 'string' || typeof o.uri === 'string')
      ? undefined
      : `${where} takes {"content": <Base64>} or {"uri": <data URI>}; write ${field.name}:='{"content": "…"}'`;
  }
  if (isComposite(field.type)) {
    return jsonProblem(where, field, v);
  }
  return undefined;
}
