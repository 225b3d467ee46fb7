import { shown } from './shown.js';

/**
 * Did-you-mean: candidates close to a misspelt name, best first. Uses the
 * optimal-string-alignment distance (edits plus adjacent swaps), case-insensitive,
 * and accepts a candidate when the distance is small for the word's length or
 * when one name is a prefix of the other.
 */
export function suggest(input: string, candidates: readonly string[], max = 3): string[] {
  const needle = input.toLowerCase();
  // No name is longer than this: a pasted paragraph gets no suggestion, in time linear in its length.
  if (needle.length === 0 || needle.length > 200) return [];
  const limit = Math.max(1, Math.floor(needle.length / 3));
  const scored: { name: string; score: number }[] = [];
  for (const name of new Set(candidates)) {
    const hay = name.toLowerCase();
    const d = distance(needle, hay);
    const prefix = needle.length >= 3 && (hay.startsWith(needle) || needle.startsWith(hay));
    if (d <= limit || prefix) scored.push({ name, score: prefix ? Math.min(d, limit) - 0.5 : d });
  }
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  return scored.slice(0, max).map((s) => s.name);
}

/** Optimal string alignment distance between two strings. */
export function distance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols).fill(0);
  const at = (i: number, j: number): number => d[i * cols + j] ?? 0;
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, at(i - 2, j - 2) + 1);
      d[i * cols + j] = v;
    }
  }
  return at(a.length, b.length);
}

/** "; did you mean 'x'?" when there is a suggestion, else "". */
export function didYouMean(input: string, candidates: readonly string[]): string {
  const best = suggest(input, candidates)[0];
  return best === undefined ? '' : `; did you mean '${shown(best)}'?`;
}
