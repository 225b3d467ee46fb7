/**
 * The query request body from the command line, built without sending
 * anything (so --print-request shows exactly what would go out): fields with
 * aliases, sort, limit, offset, search, distinct, expand and the filter.
 */
import { findField, suggestField, unorderable, type ResourceFamily } from '../catalogue/index.js';
import { UsageError } from '../errors.js';
import { shown } from '../util/shown.js';
import { didYouMean } from '../util/suggest.js';

/** One selected column: the name the record carries and the path it reads. */
export interface Selected {
  readonly name: string;
  readonly path: string;
}

/** Checks a field path: a field, a first-degree path through a reference, or extdata.NAME. */
export function checkPath(family: ResourceFamily, path: string): void {
  if (path.endsWith('.')) {
    throw new UsageError(`'${shown(path, 80)}' ends with a dot and names no field after it: give reference.field (e.g. contact.city) or extdata.NAME`);
  }
  if (path.startsWith('.')) throw new UsageError(`'${shown(path, 80)}' starts with a dot and names no field before it: give field or reference.field (e.g. contact.city)`);
  const [head = '', ...rest] = path.split('.');
  if (head === 'extdata') {
    if (rest.length !== 1 || !rest[0]) throw new UsageError(`'${shown(path, 80)}' needs one extension field name: extdata.NAME`);
    return;
  }
  const field = findField(family, head);
  if (!field) throw new UsageError(`unknown field '${shown(head, 80)}' on ${family.name}${didYouMean(head, family.fields.map((f) => f.name))} (run 'svc describe ${family.name}')`);
  if (rest.length === 0) return;
  const target = field.ref?.isFamily ? field.ref.family : undefined;
  if (!target || rest.length !== 1) {
    throw new UsageError(`'${shown(path, 80)}' is not a path: only a reference field can be followed, one step (e.g. contact.city)`);
  }
}

/** Parses `--fields a,b,city=contact.city` into selected columns. */
export function parseFields(family: ResourceFamily, text: string, follow: (family: string) => ResourceFamily | undefined): Selected[] {
  const parts = text.split(',').map((part) => part.trim());
  if (parts.every((part) => part === '')) throw new UsageError("--fields needs at least one field, e.g. --fields ID,lastname (without a value it lists the fields)");
  if (parts.includes('')) throw new UsageError(`--fields has an empty item in '${shown(text, 80)}': drop the extra comma`);
  const selected = parts.map((part) => {
    const eq = part.indexOf('=');
    const name = eq > 0 ? part.slice(0, eq).trim() : part;
    const path = eq > 0 ? part.slice(eq + 1).trim() : part;
    if (path === '') throw new UsageError(`--fields '${shown(part, 80)}' names no field after '=': give alias=path, e.g. name=lastname`);
    checkPath(family, path);
    const [head = '', tail] = path.split('.');
    const ref = findField(family, head)?.ref;
    if (tail && head !== 'extdata' && ref) {
      const next = follow(ref.family);
      if (next && !findField(next, tail)) {
        throw new UsageError(`unknown field '${shown(tail, 80)}' on ${next.name} in '${shown(path, 80)}'${didYouMean(tail, suggestField(next, tail))}`);
      }
    }
    return { name, path };
  });
  // The fields member is an object (alias → path): one name for two paths would keep only one of them.
  const paths = new Map<string, string>();
  for (const { name, path } of selected) {
    const before = paths.get(name);
    if (before !== undefined && before !== path) throw new UsageError(`--fields names '${shown(name, 80)}' for both ${shown(before, 80)} and ${shown(path, 80)}: give each its own name (alias=path)`);
    paths.set(name, path);
  }
  return selected;
}

/**
 * Parses `--sort -lastmodified,+lastname` into the service's sort array: each a field the service can sort on
 * (stored and scalar, the rule --filter keeps; a composite or computed field would be a 400).
 */
export function parseSort(family: ResourceFamily, text: string, follow: (family: string) => ResourceFamily | undefined): string[] {
  const parts = text.split(',').map((s) => s.trim());
  if (parts.every((p) => p === '')) throw new UsageError("--sort needs at least one field, e.g. --sort -lastmodified (- descending, + or nothing ascending)");
  return parts.filter(Boolean).map((s) => {
    const sign = s.startsWith('-') || s.startsWith('+') ? s.charAt(0) : '+';
    const path = s.replace(/^[+-]/, '').trim();
    if (path === '') throw new UsageError(`--sort '${shown(s, 80)}' names no field: give ${sign}FIELD (${sign === '-' ? 'descending' : 'ascending'}), e.g. ${sign}lastmodified`);
    checkPath(family, path);
    const [head = '', tail] = path.split('.');
    const field = head === 'extdata' ? undefined : tail === undefined ? findField(family, head) : (() => {
      const ref = findField(family, head)?.ref;
      const next = ref ? follow(ref.family) : undefined;
      const found = next ? findField(next, tail) : undefined;
      if (next && !found) throw new UsageError(`unknown field '${shown(tail, 80)}' on ${next.name} in '${shown(path, 80)}'${didYouMean(tail, suggestField(next, tail))}`);
      return found;
    })();
    const why = field ? unorderable(field) : undefined;
    if (why) throw new UsageError(`--sort ${shown(path, 80)}: the field ${why} and cannot be sorted on; sort by a plain field (see 'svc describe ${family.name}')`);
    return `${sign}${path}`;
  });
}

/** A whole number within bounds, for --limit, --offset and --page-size. */
export function parseCount(flag: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n < min || n > max) throw new UsageError(`${flag} takes a whole number from ${min} to ${max}, not '${shown(text, 40)}'`);
  return n;
}

export interface QueryBodyInput {
  readonly fields?: readonly Selected[];
  readonly sort?: readonly string[];
  readonly limit?: number;
  readonly offset?: number;
  readonly search?: string;
  readonly distinct?: boolean;
  readonly expand?: readonly string[];
  readonly filter?: Record<string, unknown>;
  /** `filters` (default, as the vendor's own client sends) or `filter`. */
  readonly filterMember: 'filter' | 'filters';
  readonly count?: boolean;
}

/** The JSON body of a query request. */
export function queryBody(input: QueryBodyInput): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (input.filter && Object.keys(input.filter).length > 0) body[input.filterMember] = input.filter;
  if (input.search) body.query = input.search;
  if (input.count) {
    body.count = true;
    return body;
  }
  // Always the object form (alias → path), as the vendor's api.json types it and its own client sends it.
  if (input.fields?.length) body.fields = Object.fromEntries(input.fields.map((f) => [f.name, f.path]));
  if (input.sort?.length) body.sort = input.sort;
  if (input.limit !== undefined) body.limit = input.limit;
  if (input.offset) body.offset = input.offset;
  if (input.distinct) body.distinct = true;
  if (input.expand?.length) body.expand = input.expand;
  return body;
}
