/**
 * What a column name and an integer cell may be where an SQL engine reads
 * them (a Parquet export read by DuckDB or Spark, a sync's table): written
 * once, so export and sync refuse the same names and say the same words.
 */

/** A control character (C0, DEL, C1): no column name holds one. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Whether `name` holds a control character (a line break, a tab, an escape), which cannot be part of a column's name. */
export function hasControlCharacter(name: string): boolean {
  return CONTROL.test(name);
}

/**
 * The first two of `names` that are one column to an engine comparing names
 * without case (DuckDB, Spark, SQLite): 'name' and 'Name', or one name given
 * twice; undefined when all differ.
 */
export function sameIgnoringCase(names: Iterable<string>): readonly [string, string] | undefined {
  const first = new Map<string, string>();
  for (const name of names) {
    const key = name.toLowerCase();
    const before = first.get(key);
    if (before !== undefined) return [before, name];
    first.set(key, name);
  }
  return undefined;
}

/** The integers a JSON number carries exactly: from −(2^53 − 1) to 2^53 − 1. */
export const EXACT_INTEGERS: readonly [number, number] = [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];

/** "an integer from LO to HI": what an integer column takes, as messages name it. */
export function integerFrom([lo, hi]: readonly [number, number]): string {
  return `an integer from ${lo} to ${hi}`;
}
