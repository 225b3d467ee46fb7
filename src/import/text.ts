/**
 * The bytes of an import file as text: a UTF-8 byte-order mark dropped, a
 * UTF-16 or UTF-32 one refused, and every line that is not valid UTF-8 noted
 * (by line number, with the offending byte), so that the row holding it is
 * named as invalid rather than imported with replacement characters. Pure.
 */
import { UsageError } from '../errors.js';
import { validUtf8Prefix } from '../util/utf8.js';

/** The decoded text and the lines (1-based) that are not valid UTF-8, each with a one-line reason. */
export interface DecodedInput {
  readonly text: string;
  readonly badLines: ReadonlyMap<number, string>;
}

const fatal = new TextDecoder('utf-8', { fatal: true });
const lenient = new TextDecoder('utf-8');

function describeBad(line: Uint8Array): string {
  const at = Math.min(validUtf8Prefix(line), line.length - 1);
  const byte = line[at] ?? 0;
  return `not valid UTF-8 (byte 0x${byte.toString(16).padStart(2, '0')} at byte ${at + 1} of the line); save the file as UTF-8`;
}

/**
 * Whether the file starts as UTF-16 or UTF-32 text without a byte-order
 * mark: a NUL in every other byte (or three of four) of its first
 * characters, which text a person saves as UTF-8 never has.
 */
function looksWide(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 64) & ~3;
  if (n < 4) return false;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i++) if (bytes[i] === 0) i % 2 === 0 ? even++ : odd++;
  return even >= n / 4 || odd >= n / 4;
}

/** Decodes an import file; throws a usage error for a UTF-16/32 file (which would read as garbage). */
export function decodeInput(bytes: Uint8Array, source: string): DecodedInput {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff) || (bytes[0] === 0 && bytes[1] === 0 && bytes[2] === 0xfe) || looksWide(bytes)) {
    throw new UsageError(`${source} is UTF-16 or UTF-32 text; save it as UTF-8 and import it again`);
  }
  const body = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  const badLines = new Map<number, string>();
  let start = 0;
  let n = 1;
  try {
    fatal.decode(body);
  } catch {
    // Only then look line by line: a byte 0x0A never occurs inside a multi-byte UTF-8 sequence.
    for (let i = 0; i <= body.length; i++) {
      if (i < body.length && body[i] !== 0x0a) continue;
      const line = body.subarray(start, i);
      try {
        fatal.decode(line);
      } catch {
        badLines.set(n, describeBad(line));
      }
      start = i + 1;
      n++;
    }
  }
  return { text: lenient.decode(body), badLines };
}
