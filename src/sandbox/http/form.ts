/**
 * Parses an application/x-www-form-urlencoded body with PHP-style brackets,
 * the form the service accepts: `sort[]=a&sort[]=b`, `filter[city][~]=^B`,
 * `fields[alias]=contact.city`. Numeric-looking keys stay object keys.
 */
type Node = Record<string, unknown> | unknown[];

function keyPath(name: string): string[] {
  const m = /^([^[]*)((?:\[[^\]]*\])*)$/.exec(name);
  if (!m) return [name];
  const rest = [...(m[2] ?? '').matchAll(/\[([^\]]*)\]/g)].map((x) => x[1] ?? '');
  return [m[1] ?? '', ...rest];
}

function assign(target: Node, path: readonly string[], value: string): void {
  const [head = '', ...rest] = path;
  if (Array.isArray(target)) {
    if (rest.length === 0) {
      target.push(value);
      return;
    }
    const child: Node = rest[0] === '' ? [] : {};
    target.push(child);
    assign(child, rest, value);
    return;
  }
  if (rest.length === 0) {
    target[head] = value;
    return;
  }
  let child = target[head];
  if (child === undefined || typeof child !== 'object' || child === null) {
    child = rest[0] === '' ? [] : {};
    target[head] = child;
  }
  assign(child as Node, rest, value);
}

export function parseForm(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(text)) assign(out, keyPath(k), v);
  return out;
}
