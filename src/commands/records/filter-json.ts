/**
 * The field keys of a JSON filter (--filter-json, --filter-file) checked
 * against the catalogue as the filter language checks its field names
 * (src/filter/paths.ts: a field, a first-degree path through a reference,
 * extdata.NAME; a did-you-mean for the unknown), so a misspelt or missing
 * field is a usage error before anything is sent, not an opaque 400 after.
 * The shape is the service's: an object whose keys are field paths (a plain
 * value, or an object of operator → value) or numeric keys holding a
 * composite `["AND" | "OR" | "NOT", condition…]`, or such a composite itself.
 * Only the keys are checked; values and operators are the service's to judge.
 */
import type { ResourceFamily } from '../../catalogue/index.js';
import { UsageError } from '../../errors.js';
import { resolvePath } from '../../filter/paths.js';
import { shown } from '../../util/shown.js';

const NUMERIC = /^\d+$/;
const JOINS = new Set(['AND', 'OR', 'NOT']);

/** The conditions of a composite (`["OR", {…}, {…}]`), else undefined. */
function compositeItems(v: unknown): readonly unknown[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const head: unknown = v[0];
  return typeof head === 'string' && JOINS.has(head.toUpperCase()) ? v.slice(1) : undefined;
}

/** One field key: resolvable as the filter language resolves it, and spelt as the service spells it. */
function checkKey(family: ResourceFamily, key: string, what: string): void {
  const r = resolvePath(family, { text: key, start: 0, end: key.length });
  if (!r.ok) throw new UsageError(`${what}: ${shown(r.error.message)}`);
  // The language forgives a field's case (and writes the catalogue's spelling); JSON goes to the service as it is.
  if (r.value.path !== key) throw new UsageError(`${what}: unknown field '${shown(key, 80)}' on ${family.name}; did you mean '${r.value.path}'?`);
}

/** Throws a UsageError naming the first field key of `filter` that `family` cannot be filtered on. */
export function checkFilterJson(family: ResourceFamily, filter: unknown, what: string): void {
  // Without recursion: a filter nested past the service's limit is the service's to refuse, not a stack overflow here.
  const stack: unknown[] = [filter];
  while (stack.length > 0) {
    const v = stack.pop();
    const items = compositeItems(v);
    if (items) {
      for (let i = items.length - 1; i >= 0; i--) stack.push(items[i]);
      continue;
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) continue;
    const entries = Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, value] = entries[i] as [string, unknown];
      if (NUMERIC.test(key)) stack.push(value);
    }
    for (const [key] of entries) if (!NUMERIC.test(key)) checkKey(family, key, what);
  }
}
