/**
 * The IDs a watch knows, as sorted inclusive ranges: a service's IDs are
 * mostly consecutive, so a million of them take a few numbers instead of a
 * Set's ~40 MB, and the set is written to the cursor file as it is held.
 * IDs arrive in rising order (keyset pages), which appends; an ID inside the
 * ranges or a batch of deletions rebuilds only what it touches. (A compact
 * integer set library would be native or 32-bit; IDs here are any safe integer.)
 */
export class IdSet {
  /** [start, end, start, end, …]: rising, disjoint, never adjacent (end + 1 < next start). */
  private r: number[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The IDs of flattened ranges; the caller has checked them (safe integers, each start ≤ end, rising, apart). */
  static fromRanges(ranges: readonly number[]): IdSet {
    const s = new IdSet();
    s.r = [...ranges];
    for (let i = 0; i < ranges.length; i += 2) s.count += ranges[i + 1]! - ranges[i]! + 1;
    return s;
  }

  /** The ranges, flattened (a copy). */
  ranges(): number[] {
    return [...this.r];
  }

  /** Index of the range holding id, or -(insertion point) - 1 (the index, in ranges, of the first range above it). */
  private find(id: number): number {
    let lo = 0;
    let hi = this.r.length / 2 - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (id < this.r[2 * mid]!) hi = mid - 1;
      else if (id > this.r[2 * mid + 1]!) lo = mid + 1;
      else return mid;
    }
    return -lo - 1;
  }

  has(id: number): boolean {
    return this.find(id) >= 0;
  }

  /** Adds an ID (anything but a safe integer is no ID, and is left out). */
  add(id: number): void {
    if (!Number.isSafeInteger(id)) return;
    const r = this.r;
    const n = r.length;
    // Rising IDs: at or past the top, a push or a longer last range.
    if (n === 0 || id > r[n - 1]! + 1) {
      r.push(id, id);
    } else if (id === r[n - 1]! + 1) {
      r[n - 1] = id;
    } else {
      const at = this.find(id);
      if (at >= 0) return;
      const k = -at - 1; // ranges[k] is the first above id
      const joinsBelow = k > 0 && r[2 * k - 1]! + 1 === id;
      const joinsAbove = k < n / 2 && r[2 * k]! - 1 === id;
      if (joinsBelow && joinsAbove) r.splice(2 * k - 1, 2); // the two ranges become one
      else if (joinsBelow) r[2 * k - 1] = id;
      else if (joinsAbove) r[2 * k] = id;
      else r.splice(2 * k, 0, id, id);
    }
    this.count++;
  }

  /** Adds every ID of another set (a merge of the two lists of ranges). */
  addAll(other: IdSet): void {
    if (other.count === 0) return;
    const a = this.r;
    const b = other.r;
    const out: number[] = [];
    let i = 0;
    let j = 0;
    let count = 0;
    while (i < a.length || j < b.length) {
      const fromA = j >= b.length || (i < a.length && a[i]! <= b[j]!);
      const [start, end] = fromA ? [a[i]!, a[i + 1]!] : [b[j]!, b[j + 1]!];
      if (fromA) i += 2;
      else j += 2;
      const last = out.length - 1;
      if (last > 0 && start <= out[last]! + 1) {
        if (end > out[last]!) {
          count += end - out[last]!;
          out[last] = end;
        }
      } else {
        out.push(start, end);
        count += end - start + 1;
      }
    }
    this.r = out;
    this.count = count;
  }

  /** Removes IDs given in rising order, in one pass over the ranges. */
  deleteSorted(ids: readonly number[]): void {
    if (ids.length === 0) return;
    const r = this.r;
    const out: number[] = [];
    let j = 0;
    for (let i = 0; i < r.length; i += 2) {
      let start = r[i]!;
      const end = r[i + 1]!;
      while (j < ids.length && ids[j]! < start) j++;
      while (j < ids.length && ids[j]! <= end) {
        const id = ids[j++]!;
        if (id < start) continue; // a repeat of one removed already
        if (id > start) out.push(start, id - 1);
        start = id + 1;
        this.count--;
      }
      if (start <= end) out.push(start, end);
    }
    this.r = out;
  }

  /** The IDs held here and not in `other`, rising. */
  minus(other: IdSet): number[] {
    const gone: number[] = [];
    for (const id of this) if (!other.has(id)) gone.push(id);
    return gone;
  }

  *[Symbol.iterator](): IterableIterator<number> {
    const r = this.r;
    for (let i = 0; i < r.length; i += 2) for (let id = r[i]!; id <= r[i + 1]!; id++) yield id;
  }
}
