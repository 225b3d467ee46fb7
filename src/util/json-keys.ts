/**
 * A key given twice in one JSON object: JSON.parse keeps the last in silence,
 * so a filter `{"ID": {">": 1}, "ID": {"<": 3}}` would lose a condition.
 * Found by one pass over the text, without recursion.
 */

/** The first key that occurs twice in one object of `text`, which must be valid JSON; undefined when none does. */
export function duplicateKey(text: string): string | undefined {
  // One entry per open object (the keys seen) or array (null).
  const open: (Set<string> | null)[] = [];
  let atKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const keys = open[open.length - 1];
      if (keys && atKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (keys.has(key)) return key;
        keys.add(key);
        atKey = false;
      }
      i = end;
    } else if (c === '{') {
      open.push(new Set());
      atKey = true;
    } else if (c === '[') {
      open.push(null);
      atKey = false;
    } else if (c === '}' || c === ']') {
      open.pop();
      atKey = false;
    } else if (c === ',') atKey = open[open.length - 1] instanceof Set;
  }
  return undefined;
}
