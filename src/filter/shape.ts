/**
 * The service's filter shape. Conditions ANDed on distinct fields become
 * plain members (`{"type": 1, "city": {"~*": "^ber"}}`), several operators on
 * one field share one object; OR, NOT and repeated field+operator pairs become
 * `["AND" | "OR" | "NOT", …]` arrays under numeric keys, which the service
 * accepts inside an object filter.
 */

/** A resolved condition tree: tests on one path, joined by and/or/not. */
export type Condition =
  | { readonly kind: 'test'; readonly path: string; readonly op: string; readonly value: unknown }
  | { readonly kind: 'and' | 'or'; readonly items: readonly Condition[] }
  | { readonly kind: 'not'; readonly operand: Condition };

/** The filter object of a condition tree. */
export function toFilterObject(c: Condition): Record<string, unknown> {
  return andObject(flatten(c, 'and'));
}

/** The items of nested junctions of one kind, in order. */
function flatten(c: Condition, kind: 'and' | 'or'): Condition[] {
  return c.kind === kind ? c.items.flatMap((i) => flatten(i, kind)) : [c];
}

function andObject(items: readonly Condition[]): Record<string, unknown> {
  const fields = new Map<string, Record<string, unknown>>();
  const composites: unknown[][] = [];
  const repeated: Record<string, unknown>[] = [];
  for (const item of items) {
    if (item.kind === 'test') {
      const ops = fields.get(item.path);
      if (!ops) fields.set(item.path, { [item.op]: item.value });
      else if (Object.hasOwn(ops, item.op)) repeated.push(andObject([item]));
      else ops[item.op] = item.value;
    } else if (item.kind === 'or') {
      composites.push(['OR', ...flatten(item, 'or').map(toFilterObject)]);
    } else if (item.kind === 'not') {
      composites.push(['NOT', toFilterObject(item.operand)]);
    }
  }
  if (repeated.length > 0) composites.push(['AND', ...repeated]);
  const out: Record<string, unknown> = {};
  composites.forEach((c, i) => (out[String(i)] = c));
  for (const [path, ops] of fields) out[path] = plain(ops);
  return out;
}

/** `{"=": v}` alone is written as the plain value v. */
function plain(ops: Record<string, unknown>): unknown {
  const keys = Object.keys(ops);
  return keys.length === 1 && keys[0] === '=' ? ops['='] : ops;
}

const NUMERIC = /^\d+$/;

/**
 * ANDs several filter objects into one. Members on distinct fields are kept
 * as they are; operator objects on the same field merge when their operators
 * differ; anything else that collides goes into an `["AND", …]` array under a
 * numeric key, so no condition is ever dropped. Composites keep their place
 * under fresh numeric keys.
 */
export function combineFilters(filters: readonly Record<string, unknown>[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const collided: Record<string, unknown>[] = [];
  let next = 0;
  for (const filter of filters) {
    if (Array.isArray(filter)) {
      out[String(next++)] = filter;
      continue;
    }
    for (const [key, value] of Object.entries(filter)) {
      if (NUMERIC.test(key)) out[String(next++)] = value;
      else if (!Object.hasOwn(out, key)) setMember(out, key, value);
      else {
        const merged = mergeMember(out[key], value);
        if (merged === undefined) collided.push(setMember({}, key, value));
        else setMember(out, key, merged);
      }
    }
  }
  if (collided.length > 0) out[String(next++)] = ['AND', ...collided];
  return out;
}

/** Sets an own member, even one named `__proto__`, and returns the object. */
function setMember(o: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  return o;
}

/** Two members of one field as one operator object, or undefined when they cannot share one. */
function mergeMember(a: unknown, b: unknown): Record<string, unknown> | undefined {
  const x = operatorsOf(a);
  const y = operatorsOf(b);
  if (!x || !y) return undefined;
  const taken = new Set(Object.keys(x).map((k) => k.toUpperCase()));
  if (Object.keys(y).some((k) => taken.has(k.toUpperCase()))) return undefined;
  const merged: Record<string, unknown> = {};
  for (const [k, v] of [...Object.entries(x), ...Object.entries(y)]) setMember(merged, k, v);
  return merged;
}

function operatorsOf(v: unknown): Record<string, unknown> | undefined {
  if (Array.isArray(v)) return { IN: v };
  if (typeof v !== 'object' || v === null) return { '=': v };
  const keys = Object.keys(v);
  if (keys.length === 0 || keys.some((k) => NUMERIC.test(k))) return undefined;
  return v as Record<string, unknown>;
}
