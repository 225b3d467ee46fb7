/**
 * Text appended piece by piece into UTF-8 bytes, outside the JavaScript heap.
 * A page of an export is a thousand lines that live until the page is
 * complete; as strings they would survive garbage collections and be
 * promoted, so memory would climb between full collections. As bytes in
 * blocks they cost the heap nothing, and each line dies young.
 */
const BLOCK = 64 * 1024;

export class ByteBuilder {
  private readonly blocks: Buffer[] = [];
  private current = Buffer.allocUnsafe(BLOCK);
  private used = 0;
  private total = 0;

  /** Appends a piece of text as UTF-8. */
  append(text: string): void {
    // A UTF-16 code unit takes at most three bytes in UTF-8.
    const room = text.length * 3;
    if (this.current.length - this.used < room) {
      if (this.used > 0) this.blocks.push(this.current.subarray(0, this.used));
      this.current = Buffer.allocUnsafe(Math.max(BLOCK, room));
      this.used = 0;
    }
    const n = this.current.write(text, this.used, 'utf8');
    this.used += n;
    this.total += n;
  }

  /** Bytes appended so far. */
  get length(): number {
    return this.total;
  }

  /** Everything appended, as one buffer. */
  bytes(): Buffer {
    const last = this.current.subarray(0, this.used);
    return this.blocks.length === 0 ? last : Buffer.concat([...this.blocks, last], this.total);
  }
}
