/** How deep a parsed JSON value nests, checked without recursion (a value too deep for JSON.stringify is still checked). */

/** Whether `value` nests deeper than `max` levels (a scalar is level 0, `{}` and `[]` level 1). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const x of Object.values(v)) stack.push([x, depth + 1]);
  }
  return false;
}
