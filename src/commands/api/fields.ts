/**
 * `svc api`'s fields, as gh api takes them: `-f key=value` (a string) and
 * `-F key=value` (true, false, null and numbers as JSON; `@FILE` a file's text,
 * `@-` standard input), with nested keys: `filters[type]=1` is an object,
 * `fields[]=ID` appends to a list, `key[]` alone is an empty list, and
 * `items[][name]=x` fills the list's last object until a key repeats. Pure:
 * files and standard input are read before (run.ts) and handed in.
 *
 * Keys are data, never paths into a prototype: objects are made without one
 * (`Object.create(null)`) and looked into with own-key checks, so
 * `__proto__[x]=1` and `constructor[prototype][y]=1` are ordinary members.
 */
import { UsageError } from '../../errors.js';
import { shown } from '../../util/shown.js';

/** Nesting a key may have: `a[b][c]` is 3. The sandbox takes bodies 128 levels deep; a deeper one belongs in --input. */
export const MAX_KEY_DEPTH = 32;

/** One part of a key: a member name, or `[]` (append to a list). */
export type KeyPart = { readonly kind: 'member'; readonly name: string } | { readonly kind: 'push' };

/** A field as given on the command line, its key parsed. */
export interface FieldArg {
  /** The key as written, e.g. `filters[type]` (a query string sends it so). */
  readonly key: string;
  readonly parts: readonly KeyPart[];
  /** The value as written; undefined for `key[]` alone (an empty list). */
  readonly value?: string;
  /** -F: true, false, null and numbers become JSON values, `@FILE` and `@-` text read from there. */
  readonly typed: boolean;
}

/** A value a field gives its key; undefined for an empty list. */
export type FieldValue = string | number | boolean | null;

/** What `@FILE` and `@-` name: their text, read beforehand (see run.ts). */
export interface FieldSources {
  /** The text of a file named by `@FILE` (or `--input FILE`). */
  file(path: string): string;
  /** The text of standard input, for `@-` (or `--input -`). */
  stdin(): string;
}

/** A key for messages: short, and never the value (it may be a password). */
function shownKey(flag: string, key: string): string {
  return `${flag} '${shown(key, 60)}'`;
}

/** Parses `key=value` (or `key[]` alone); the key ends at the first `=` outside brackets. */
export function parseField(text: string, typed: boolean): FieldArg {
  const flag = typed ? '-F' : '-f';
  let pos = 0;
  while (pos < text.length && !'[]='.includes(text[pos] ?? '')) pos++;
  const name = text.slice(0, pos);
  const bad = (why: string): UsageError => new UsageError(`${shownKey(flag, text.slice(0, pos) || text)}: ${why}`);
  if (!name) throw bad(`a field needs a key before '=' or '[', e.g. ${flag} name=value`);
  const parts: KeyPart[] = [{ kind: 'member', name }];
  while (text[pos] === '[') {
    const close = text.indexOf(']', pos + 1);
    if (close < 0) throw bad("a '[' has no ']' (write key[sub]=value)");
    const inner = text.slice(pos + 1, close);
    if (inner.includes('[')) throw bad("a '[' inside brackets (write key[a][b]=value)");
    const last = parts[parts.length - 1];
    if (inner === '' && last?.kind === 'push') throw bad('lists of lists (key[][]) cannot be written as fields; send the body with --input');
    parts.push(inner === '' ? { kind: 'push' } : { kind: 'member', name: inner });
    pos = close + 1;
    if (parts.length > MAX_KEY_DEPTH) throw bad(`the key nests deeper than ${MAX_KEY_DEPTH} levels; send such a body with --input`);
  }
  const key = text.slice(0, pos);
  if (pos === text.length) {
    if (parts[parts.length - 1]?.kind === 'push') return { key, parts, typed };
    throw new UsageError(`${shownKey(flag, key)} needs a value: ${flag} ${shown(key, 60)}=VALUE (or ${shown(key, 60)}[] alone for an empty list)`);
  }
  if (text[pos] !== '=') throw new UsageError(`${shownKey(flag, key)}: unexpected '${text[pos]}' after the key; write key[sub]=value`);
  return { key, parts, value: text.slice(pos + 1), typed };
}

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** A field's value: -f as written; -F typed (true, false, null, numbers, @FILE, @-). */
export function fieldValue(field: FieldArg, sources: FieldSources): FieldValue | undefined {
  const text = field.value;
  if (text === undefined || !field.typed) return text;
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (text.startsWith('@')) return text === '@-' ? sources.stdin() : sources.file(text.slice(1));
  if (!NUMBER.test(text)) return text;
  const n = Number(text);
  if (!Number.isFinite(n) || (Number.isInteger(n) && !Number.isSafeInteger(n) && !/[.eE]/.test(text))) {
    throw new UsageError(`${shownKey('-F', field.key)}: the number is too large to send exactly (past 2^53 − 1); pass it with -f to send it as a string`);
  }
  // A JSON number is a binary64 value, written in its shortest form: digits past what that holds would be
  // changed unseen (9007199254740993.0 → 9007199254740992, 0.12345678901234567891 → 0.12345678901234568).
  if (!sameDecimal(text, String(n))) {
    throw new UsageError(
      `${shownKey('-F', field.key)}: ${shown(text, 60)} has more digits than a JSON number holds and would be sent as ${String(n)}; pass it with -f to send it exactly, as a string`,
    );
  }
  return n;
}

/** A decimal text's value as `digits e exponent`, no leading or trailing zeros (string work: a long text stays cheap). */
function canonical(text: string): string | undefined {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return undefined;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = m;
  const all = `${whole}${fraction}`;
  // Scanned, not a /0+$/ (which backtracks quadratically over a long run of zeros).
  let first = 0;
  while (all[first] === '0') first++;
  if (first === all.length) return '0';
  let end = all.length;
  while (all[end - 1] === '0') end--;
  const exp = Number(exponent) - fraction.length + (all.length - end);
  return `${sign === '-' ? '-' : ''}${all.slice(first, end)}e${exp}`;
}

/** Whether two decimal texts are the same number (1.50 and 1.5, 1e20 and 100000000000000000000). */
function sameDecimal(a: string, b: string): boolean {
  const x = canonical(a);
  return x !== undefined && x === canonical(b);
}

/** The file named by `@FILE` in a -F field, if any (`@-` is standard input, not a file). */
export function fileOf(field: FieldArg): string | undefined {
  return field.typed && field.value?.startsWith('@') && field.value !== '@-' ? field.value.slice(1) : undefined;
}

/** Whether a field reads standard input (`-F key=@-`). */
export function readsStdin(field: FieldArg): boolean {
  return field.typed && field.value === '@-';
}

type Obj = Record<string, unknown>;

function blank(): Obj {
  return Object.create(null) as Obj;
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Builds the JSON body the fields make, in order (-f before -F, as gh does). */
export function buildParams(fields: readonly FieldArg[], sources: FieldSources): Obj {
  const root = blank();
  for (const f of fields) place(root, f, fieldValue(f, sources));
  return root;
}

function place(root: Obj, field: FieldArg, value: FieldValue | undefined): void {
  const flag = field.typed ? '-F' : '-f';
  const clash = (name: string, what: string): UsageError => new UsageError(`${shownKey(flag, field.key)}: '${shown(name, 60)}' ${what}`);
  const own = (o: Obj, k: string): boolean => Object.hasOwn(o, k);
  const listAt = (o: Obj, k: string): unknown[] => {
    if (!own(o, k)) o[k] = [];
    const v = o[k];
    if (!Array.isArray(v)) throw clash(k, 'already holds a value that is not a list; use one form for a key');
    return v;
  };
  let dest = root;
  let pending = '';
  let inList = false;
  for (const part of field.parts) {
    if (part.kind === 'push') {
      inList = true;
      continue;
    }
    if (pending === '') {
      pending = part.name;
      continue;
    }
    if (inList) {
      // `a[][x]`: the list's last object takes x unless it has x already; then a new object starts.
      const list = listAt(dest, pending);
      const last = list[list.length - 1];
      if (isObj(last) && !own(last, part.name)) dest = last;
      else list.push((dest = blank()));
      inList = false;
    } else {
      if (!own(dest, pending)) dest[pending] = blank();
      const next = dest[pending];
      if (!isObj(next)) throw clash(pending, 'already holds a value; a key cannot be both a value and an object');
      dest = next;
    }
    pending = part.name;
  }
  if (inList) {
    const list = listAt(dest, pending);
    if (value !== undefined) list.push(value);
    return;
  }
  if (own(dest, pending)) throw clash(pending, 'is given twice; use key[]=value for a list');
  dest[pending] = value;
}

/** The fields as query parameters (GET and HEAD): each key as written, values as text; an empty list adds nothing. */
export function queryPairs(fields: readonly FieldArg[], sources: FieldSources): [string, string][] {
  const pairs: [string, string][] = [];
  for (const f of fields) {
    const v = fieldValue(f, sources);
    if (f.value === undefined) continue;
    pairs.push([f.key, v === null ? '' : String(v)]);
  }
  return pairs;
}
