/**
 * What `sync` and `watch` can follow. Both find changes by a record's
 * `lastmodified`, which a change to a record it references does not touch:
 * a field or a filter condition read through a reference (`contact.city`)
 * would go stale in a copy, or never show in a feed, without a word. They
 * refuse such paths; `extdata.NAME` is the record's own and is followed.
 */
import type { ResourceFamily } from '../catalogue/index.js';
import { UsageError } from '../errors.js';
import { shown } from '../util/shown.js';

/** The paths through a reference among the selected fields' paths and the filter's keys, in order, once each. */
export function referencePaths(paths: readonly string[], filter: unknown): string[] {
  const found = new Set<string>();
  const through = (path: string): boolean => path.includes('.') && !path.startsWith('extdata.');
  for (const p of paths) if (through(p)) found.add(p);
  const walk = (value: unknown, depth: number): void => {
    if (depth > 64 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const v of value) walk(v, depth + 1);
      return;
    }
    for (const [key, v] of Object.entries(value)) {
      if (through(key)) found.add(key);
      walk(v, depth + 1);
    }
  };
  walk(filter, 0);
  return [...found];
}

/** Refuses paths through a reference for `verb` (sync, watch), naming the first and what to do instead. */
export function refuseReferencePaths(family: ResourceFamily, verb: 'sync' | 'watch', paths: readonly string[], filter: unknown, remembered = false): void {
  const found = referencePaths(paths, filter);
  const first = found[0];
  if (first === undefined) return;
  const other = shown(first.split('.')[0] ?? first, 80);
  const fix = remembered ? `rebuild the copy without it (--reset with other --fields or --filter)` : `leave it out of --fields and --filter`;
  throw new UsageError(
    `${family.name} ${verb} cannot follow '${shown(first, 80)}': a change to the record '${other}' refers to does not change this record's lastmodified, so it would never be seen; ${fix}, and ${verb} the family '${other}' refers to as well`,
  );
}
