/**
 * A small input file a user names (`--filter-file`, `--data-file`) read
 * whole, as bytes, and those bytes as UTF-8 text.
 *
 * The file is read by read-bounded.ts: a FIFO (a named pipe, `<(jq …)`) is
 * opened without waiting for a writer and read through the event loop, so the
 * process stays free to end on SIGINT or SIGTERM while nobody writes.
 *
 * The text must be UTF-8: a byte that is not is reported with its offset,
 * never read as U+FFFD; a leading UTF-8 byte-order mark is dropped; a UTF-16
 * byte-order mark is reported as such.
 */
import { readBounded } from './read-bounded.js';
import { validUtf8Prefix } from './utf8.js';

/** The most an input file may hold: far above any filter or record, and a device such as /dev/zero stops there. */
export const MAX_INPUT_FILE_BYTES = 64 * 1024 * 1024;

/**
 * The bytes of `path` (at most MAX_INPUT_FILE_BYTES: past it, read-bounded's ReadBoundError); a FIFO is read
 * as it is written, `onWait` told when it has no writer yet. Errors are the file system's (ENOENT, EISDIR, EACCES, …).
 */
export async function readInputBytes(path: string, onWait: () => void = () => undefined): Promise<Buffer> {
  return readBounded(path, { maxBytes: MAX_INPUT_FILE_BYTES, onWait });
}

/** All the bytes of a stream (standard input), strings as UTF-8. */
export async function readStreamBytes(stream: AsyncIterable<string | Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** The text of UTF-8 bytes, or why they are not UTF-8 text. */
export type Utf8Text = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly problem: string };

/** The offset where the first invalid UTF-8 sequence of `bytes` starts (after the longest valid prefix). */
function firstBadByte(bytes: Uint8Array): number {
  const lo = validUtf8Prefix(bytes);
  // The prefix may end inside a sequence the next byte breaks: the problem starts at that sequence's first byte.
  let at = lo;
  while (at > 0 && !decodes(bytes.subarray(0, at))) at--;
  return Math.min(at, bytes.length - 1);
}

function decodes(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Decodes UTF-8 bytes, a leading byte-order mark dropped; a byte that is not
 * UTF-8 is a problem naming it and its offset ("not UTF-8 text (byte 0xff at offset 13)").
 */
export function utf8Text(bytes: Uint8Array): Utf8Text {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return { ok: false, problem: 'UTF-16 text (it starts with a UTF-16 byte-order mark), not UTF-8' };
  }
  const body = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  try {
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body) };
  } catch {
    const at = firstBadByte(body);
    const offset = at + (body === bytes ? 0 : 3);
    return { ok: false, problem: `not UTF-8 text (byte 0x${(body[at] ?? 0).toString(16).padStart(2, '0')} at offset ${offset})` };
  }
}
