/**
 * Parses an application/x-www-form-urlencoded body with PHP-style brackets,
 * the form the service accepts: `sort[]=a&sort[]=b`, `filter[city][~]=^B`,
 * `fields[alias]=contact.city`. Numeric-looking keys stay object keys.
 *
 * Every key becomes an own data property, exactly as JSON.parse makes one:
 * `__proto__`, `constructor` and `prototype` are ordinary keys here (checked
 * later like any other name), never a way to reach or replace a prototype.
 */
import { badRequest } from '../errors.js';
import { excerpt, LIMITS, overLimit } from '../limits.js';

type Node = Record<string, unknown> | unknown[];

/** `a[b][]` → ['a', 'b', '']; a name with unbalanced brackets is one plain key, as PHP reads it. */
export function keyPath(name: string): string[] {
  const open = name.indexOf('[');
  if (open < 0) return [name];
  const path = [name.slice(0, open)];
  let i = open;
  while (i < name.length) {
    const close = name.indexOf(']', i);
    if (name[i] !== '[' || close < 0) return [name];
    path.push(name.slice(i + 1, close));
    i = close + 1;
  }
  return path;
}

function own(target: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(target, key) ? target[key] : undefined;
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

function assign(root: Node, path: readonly string[], value: string): void {
  let target = root;
  for (let i = 0; i < path.length; i++) {
    const head = path[i] ?? '';
    const last = i === path.length - 1;
    const next = (): Node => (path[i + 1] === '' ? [] : {});
    if (Array.isArray(target)) {
      if (last) target.push(value);
      else {
        const child = next();
        target.push(child);
        target = child;
      }
      continue;
    }
    if (last) {
      define(target, head, value);
      continue;
    }
    let child = own(target, head);
    if (typeof child !== 'object' || child === null) {
      child = next();
      define(target, head, child);
    }
    target = child as Node;
  }
}

/** One key or value of a form: `+` is a space, %-escapes are UTF-8 bytes; 400 naming it when they are malformed. */
function decodeComponent(raw: string, what: () => string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    throw badRequest(`malformed percent-escape in ${what()}; escape '%' as %25 and percent-encode UTF-8 bytes only`);
  }
}

/**
 * The name-value pairs of a form body, in order. Unlike URLSearchParams, which
 * reads a malformed escape (`%zz`, a lone `%`, `%ff`) as U+FFFD and goes on,
 * a malformed escape is a 400 naming the key or value that holds it.
 */
export function formPairs(text: string): [string, string][] {
  const pairs: [string, string][] = [];
  for (const piece of text.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const rawKey = eq < 0 ? piece : piece.slice(0, eq);
    const rawValue = eq < 0 ? '' : piece.slice(eq + 1);
    const key = decodeComponent(rawKey, () => `the form key '${excerpt(rawKey)}'`);
    const value = decodeComponent(rawValue, () => `the value of the form key '${excerpt(key)}' ('${excerpt(rawValue)}')`);
    pairs.push([key, value]);
  }
  return pairs;
}

/**
 * The plain names a parsed form body gave more than once (the last value is kept), as a hidden member of
 * the parsed object: the OAuth interface refuses a repeated parameter (RFC 6749 section 3.1), the data
 * interface keeps the last, as before.
 */
export const REPEATED_NAMES: unique symbol = Symbol('repeated form names');

/** Parses a form body; 400 for a malformed escape or a key nesting deeper than the body limit. */
export function parseForm(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const seen = new Set<string>();
  const repeated = new Set<string>();
  Object.defineProperty(out, REPEATED_NAMES, { value: repeated, enumerable: false });
  for (const [k, v] of formPairs(text)) {
    if (seen.has(k)) repeated.add(k);
    seen.add(k);
    const path = keyPath(k);
    if (path.length > LIMITS.bodyDepth) {
      throw overLimit(`form key '${excerpt(k)}' nests deeper than ${LIMITS.bodyDepth} levels`, LIMITS.bodyDepth);
    }
    assign(out, path, v);
  }
  return out;
}
