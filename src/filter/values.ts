/**
 * Values as typed to what a field stores: numbers, flags (true/false → 1/0),
 * enum names (case-insensitive) to their stored values, dates to Unix seconds
 * on timestamp fields, and text as is. Extension fields have no declared
 * type: bare numbers and true/false keep their JSON type, the rest is text.
 */
import { aOrAn, enumValueOf, type ResourceField } from '../catalogue/index.js';
import { suggest } from '../util/suggest.js';
import type { ValueNode } from './ast.js';
import { parseDate } from './dates.js';
import { clip, fail, ok, type Result } from './errors.js';
import type { Target } from './paths.js';
import { regexProblem } from './regex.js';

/** What value conversion needs beyond the value and the field. */
export interface ValueContext {
  readonly family: string;
  readonly now: number;
  readonly timeZone: string | undefined;
}

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const FLAGS: Readonly<Record<string, number>> = { true: 1, false: 0, '1': 1, '0': 0, yes: 1, no: 0 };
const INTEGER_TYPES = new Set(['int16', 'int32', 'int64', 'binfile']);

/** Converts one value for `target`; `null` (bare) is null. Patterns are converted by the caller. */
export function convertValue(value: ValueNode, target: Target, ctx: ValueContext): Result<unknown> {
  if (!value.quoted && value.text.toLowerCase() === 'null') return ok(null);
  const field = target.field;
  if (!field) {
    // An integer a JSON number cannot carry exactly (9007199254740993) would be sent as a neighbour: refused.
    if (!value.quoted && INTEGER.test(value.text) && !exactInJson(value.text)) {
      return fail(`${clip(value.text)} is not a number JSON holds exactly (it would be sent as its neighbour); quote it to compare text`, value.start, value.end);
    }
    return ok(extensionValue(value));
  }
  const named = field.enum ? enumValueOf(field, value.text) : undefined;
  if (named !== undefined && !(field.type === 'string' && field.enum?.some((e) => e.value === value.text))) return ok(named);
  const text = value.text.trim();
  if (field.type === 'string') return ok(value.text);
  if (field.type === 'flag') {
    const word = text.toLowerCase();
    const flag = Object.hasOwn(FLAGS, word) ? FLAGS[word] : undefined;
    return flag === undefined ? bad(value, target, ctx.family, 'is not a flag; use true, false, 1 or 0') : ok(flag);
  }
  if (field.type === 'double') return NUMBER.test(text) && Number.isFinite(Number(text)) ? ok(Number(text)) : bad(value, target, ctx.family, 'is not a finite number');
  if (!INTEGER_TYPES.has(field.type)) return bad(value, target, ctx.family, `cannot be compared with ${aOrAn(field.type)} field`);
  if (INTEGER.test(text)) return safeInteger(value, target, Number(text), ctx.family);
  if (field.enum?.some((e) => e.name !== undefined)) return unknownName(value, target, field, ctx.family);
  if (field.timestamp) {
    const date = parseDate(text, ctx.now, ctx.timeZone);
    return date.ok ? ok(date.seconds) : fail(`${date.message} (for ${target.path} on ${ctx.family})`, value.start, value.end);
  }
  return bad(value, target, ctx.family, `is not an integer; ${target.path} is ${field.type}`);
}

/** Checks a pattern of a regex or like operator: text, and for regex a valid expression in PostgreSQL's dialect. */
export function convertPattern(value: ValueNode, regex: boolean): Result<string> {
  if (!value.quoted && value.text.toLowerCase() === 'null') return fail('a pattern cannot be null; use is null', value.start, value.end);
  if (!regex) return ok(value.text);
  const problem = regexProblem(value.text);
  return problem === undefined ? ok(value.text) : fail(`invalid regular expression: /${clip(value.text)}/: ${problem}`, value.start, value.end);
}

/** Whether the whole number `digits` is exactly a binary64 (every one up to 2^53, and some past it, such as 2^53 + 2). */
function exactInJson(digits: string): boolean {
  const n = Number(digits);
  return Number.isFinite(n) && BigInt(digits) === BigInt(n);
}

function extensionValue(value: ValueNode): unknown {
  if (value.quoted) return value.text;
  const lower = value.text.toLowerCase();
  if (lower === 'true' || lower === 'false') return lower === 'true';
  return NUMBER.test(value.text) && Number.isFinite(Number(value.text)) ? Number(value.text) : value.text;
}

function safeInteger(value: ValueNode, target: Target, n: number, family: string): Result<unknown> {
  return Number.isSafeInteger(n) ? ok(n) : bad(value, target, family, 'is too large for an integer');
}

function unknownName(value: ValueNode, target: Target, field: ResourceField, family: string): Result<unknown> {
  const names = (field.enum ?? []).flatMap((e) => (e.name === undefined ? [] : [e.name]));
  const hint = suggest(value.text, names)[0];
  const mean = hint === undefined ? '' : ` did you mean '${hint}'?`;
  const list = names.length > 12 ? `${names.slice(0, 12).join(', ')}, … (see svc describe)` : names.join(', ');
  return fail(`unknown value '${clip(value.text)}' for ${target.path} on ${family};${mean} use one of ${list} or a number`, value.start, value.end);
}

function bad(value: ValueNode, target: Target, family: string, why: string): Result<unknown> {
  return fail(`'${clip(value.text)}' ${why} (value of ${target.path} on ${family})`, value.start, value.end);
}
