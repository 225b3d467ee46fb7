/**
 * Wide composites for the sandbox fuzz suite: one query OR-ing (or AND-ing)
 * tens to hundreds of heavy `~` / `~~` conditions, each within the limits
 * (pattern length, conditions, body size), over long texts the suite plants
 * (`plantLongTexts`). Each condition is cheap alone; together, without the
 * pattern budget, one such query holds the server for tens of seconds, so a
 * regression of the budget (src/sandbox/pattern-budget.ts) shows as a slow answer.
 */
import fc from 'fast-check';
import type { Db } from '../../src/sandbox/db.js';
import { table } from '../../src/sandbox/schema.js';
import type { FuzzRequest } from './fuzz-inputs.js';

/** The extension field holding the planted texts: never in a default answer, so other queries stay small. */
export const LONG_FIELD = 'extdata.fuzzlong';
/** Characters of each planted text (a run of 'a', on which the patterns below almost match everywhere). */
export const LONG_TEXT = 16_000;

/** Gives every account of the demo instance a long text in LONG_FIELD; returns how many got one. */
export function plantLongTexts(db: Db): number {
  const accounts = db.prepare(`SELECT "ID" FROM ${table('demo', 'accounts')}`).pluck().all() as number[];
  const insert = db.prepare(`INSERT OR REPLACE INTO ${table('demo', '_extdata')} (family, record, name, value) VALUES ('accounts', ?, ?, ?)`);
  const value = JSON.stringify('a'.repeat(LONG_TEXT));
  db.transaction(() => {
    for (const id of accounts) insert.run(id, LONG_FIELD.slice('extdata.'.length), value);
  })();
  return accounts.length;
}

/**
 * Patterns that cost (text length × pattern size) on a run of 'a' (measured on
 * 16,000 characters: 3 to 40 ms a call, and the \p{L} one 0.1 s to compile);
 * `i` makes each distinct, so neither cache helps.
 */
const HEAVY: Readonly<Record<'like' | 'regex', readonly ((i: number) => string)[]>> = {
  like: [(i) => `%${'a_'.repeat(450)}b${i}%`, (i) => `%${'a'.repeat(900)}b${i}%`],
  regex: [(i) => `\\p{L}{300}X${i}`, (i) => `[\\s\\S]{900}X${i}`, (i) => `(?:a|b){900}c${i}`],
};
/** LIKE only in its case-insensitive forms: a case-sensitive literal run is found fast. */
const OPERATORS = { like: ['~~*', '!~~*'], regex: ['~*', '~', '!~*', '!~'] } as const;

/** A wide composite, described: the body is built when sent (`wideBody`), so a failing case prints short. */
export interface WideSpec {
  /** Conditions: 16 to 64 (within the pattern-condition limit: the budget must stop it) or 65 to 400 (refused at once). */
  readonly width: number;
  readonly kind: 'like' | 'regex';
  readonly shape: number;
  readonly op: number;
  /** With a negated operator: NOT instead of AND. */
  readonly not: boolean;
  readonly field: string;
  /** Inside `["AND", {"ID": {">": 0}}, …]`. */
  readonly nested: boolean;
}

/**
 * The query body of a wide composite. Every condition misses, and the join
 * never short-circuits: OR of matching operators, AND or NOT of negated ones.
 */
export function wideBody(spec: WideSpec): unknown {
  const ops = OPERATORS[spec.kind];
  const symbol = ops[spec.op % ops.length] ?? ops[0];
  const shapes = HEAVY[spec.kind];
  const pattern = shapes[spec.shape % shapes.length] ?? shapes[0];
  const conditions = Array.from({ length: spec.width }, (_, i) => ({ [spec.field]: { [symbol]: pattern?.(i) } }));
  const composite = [symbol.startsWith('!') ? (spec.not ? 'NOT' : 'AND') : 'OR', ...conditions];
  return { filter: spec.nested ? ['AND', { ID: { '>': 0 } }, composite] : composite, fields: ['ID'], limit: 5 };
}

/** One wide composite query on accounts, as reader or demo, JSON or form. */
export function wideCompositeRequest(): fc.Arbitrary<FuzzRequest> {
  const spec: fc.Arbitrary<WideSpec> = fc.record({
    width: fc.oneof(fc.integer({ min: 16, max: 64 }), fc.integer({ min: 65, max: 400 })),
    kind: fc.constantFrom('like' as const, 'regex' as const),
    shape: fc.nat({ max: 5 }),
    op: fc.nat({ max: 3 }),
    not: fc.boolean(),
    field: fc.oneof({ weight: 4, arbitrary: fc.constant(LONG_FIELD) }, fc.constantFrom('description', 'lastname')),
    nested: fc.boolean(),
  });
  return fc.record({ spec, user: fc.constantFrom('reader' as const, 'demo' as const), form: fc.boolean() }).map(({ spec: w, user, form }) => ({
    method: 'POST',
    path: '/demo/api/v1/accounts',
    user,
    headers: {},
    body: { kind: 'wide', spec: w, form },
  }));
}
