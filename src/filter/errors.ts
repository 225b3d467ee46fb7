/**
 * Errors of the filter language are values, never exceptions: a one-line
 * message and the span of the expression it concerns.
 */
import { charWidth } from '../output/width.js';
import { ACTING } from '../util/shown.js';

/** A problem in a filter expression; `start`..`end` (end exclusive) lies within the text. */
export interface FilterError {
  readonly message: string;
  readonly start: number;
  readonly end: number;
}

/** A value or an error, as every stage of the filter language returns it. */
export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: FilterError };

/** A successful result. */
export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

/**
 * A failed result with a message (kept on one line and inert on a terminal:
 * characters that act instead of showing, ACTING, are escaped as \uXXXX) and span.
 */
export function fail<T = never>(message: string, start: number, end: number): Result<T> {
  const line = message.replace(ACTING, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return { ok: false, error: { message: line, start, end } };
}

/** Outside text (a token, a name, a value) as a message quotes it: at most MAX_QUOTED characters, cut with …. */
export function clip(text: string): string {
  if (text.length <= MAX_QUOTED) return text;
  const cut = /[\ud800-\udbff]/.test(text.charAt(MAX_QUOTED - 1)) ? MAX_QUOTED - 1 : MAX_QUOTED;
  return `${text.slice(0, cut)}…`;
}

const MAX_QUOTED = 60;

/** Columns of the expression shown around the fault; a longer one is cut to a window, with … at a cut end. */
const ERROR_WINDOW = 80;

/** Columns of context kept before the fault when the expression is cut. */
const BEFORE = 24;

/**
 * The error as three lines: the message, the expression (indented two
 * spaces) and a caret line under the span (at least one caret, one past the
 * end for a span at the end). An empty expression gives two lines: the
 * message and a caret.
 *
 * The expression is shown as a terminal shows it: line breaks and tabs as
 * spaces, other characters that would act on the terminal (ACTING: controls,
 * C1, bidirectional overrides and isolates) and invisible format characters
 * as '?', and the caret placed by
 * display columns, so wide (East Asian) characters and combining marks keep it
 * under the fault. An expression wider than ERROR_WINDOW columns is cut to a
 * window around the fault, each cut end marked with ….
 */
export function renderFilterError(text: string, error: FilterError): string {
  const start = clamp(error.start, 0, text.length);
  const end = clamp(error.end, start, text.length);
  if (text.length === 0) return `${error.message}\n  ^`;
  // Only the text near the fault can be shown: lay out a stretch around it, never the whole of a long expression.
  const from = boundary(text, start - NEAR);
  const to = boundary(text, Math.min(end, start + NEAR) + NEAR);
  const chars = cells(text.slice(from, to), from);
  const cutBefore = from > 0;
  const cutAfter = to < text.length;
  const index = (offset: number): number => {
    const i = chars.findIndex((c) => c.offset >= offset);
    return i === -1 ? chars.length : i;
  };
  const width = total(chars);
  const column = (i: number): number => chars[i]?.column ?? width;
  const first = index(start);
  const last = Math.max(first, index(end));
  let lo = 0;
  let hi = chars.length;
  if (cutBefore || cutAfter || width > ERROR_WINDOW) {
    // Room for a … at either cut end; the fault starts BEFORE columns in, or as far in as the end of the text allows.
    const room = ERROR_WINDOW - 2;
    const left = Math.max(0, Math.min(column(first) - BEFORE, width + (cutAfter ? 0 : 1) - room));
    lo = chars.findIndex((c) => c.column >= left);
    if (lo === -1) lo = chars.length;
    hi = lo;
    while (hi < chars.length && column(hi) + (chars[hi]?.width ?? 0) - column(lo) <= room) hi++;
  }
  const head = cutBefore || lo > 0 ? '…' : '';
  const atEnd = hi === chars.length && !cutAfter;
  const tail = atEnd ? '' : '…';
  const shown = head + chars.slice(lo, hi).map((c) => c.text).join('') + tail;
  const caretAt = head.length + column(first) - column(lo);
  const room = head.length + column(hi) - column(lo) + (atEnd ? 1 : 0) - caretAt;
  const carets = Math.min(Math.max(1, Math.min(column(last), column(hi)) - column(first)), Math.max(1, room));
  return `${error.message}\n  ${shown}\n  ${' '.repeat(caretAt)}${'^'.repeat(carets)}`;
}

/** UTF-16 units laid out on either side of the fault: enough for the window, unless zero-width characters crowd it. */
const NEAR = ERROR_WINDOW * 8;

/** `at`, kept within the text and moved off the middle of a surrogate pair. */
function boundary(text: string, at: number): number {
  const n = Math.min(Math.max(at, 0), text.length);
  return n > 0 && n < text.length && /[\udc00-\udfff]/.test(text.charAt(n)) && /[\ud800-\udbff]/.test(text.charAt(n - 1)) ? n - 1 : n;
}

/** One code point of the expression as shown: its text, its offset in the expression, its column and width. */
interface Cell {
  readonly text: string;
  readonly offset: number;
  readonly column: number;
  readonly width: number;
}

/** Shown as '?' (or a space for a line break): what acts on a terminal, and invisible format characters (zero-width space, BOM, …). */
const ACTS = new RegExp(`${ACTING.source}|\\p{Cf}`, 'u');
const BREAK = /\s/u;

/** The code points of `text`, a stretch of the expression starting at offset `offset`. */
function cells(text: string, offset0: number): Cell[] {
  const out: Cell[] = [];
  let offset = offset0;
  let column = 0;
  for (const ch of text) {
    const acts = ACTS.test(ch);
    const shown = acts ? (BREAK.test(ch) ? ' ' : '?') : ch;
    const width = acts ? 1 : charWidth(ch.codePointAt(0) ?? 0);
    out.push({ text: shown, offset, column, width });
    offset += ch.length;
    column += width;
  }
  return out;
}

function total(chars: readonly Cell[]): number {
  const lastCell = chars[chars.length - 1];
  return lastCell === undefined ? 0 : lastCell.column + lastCell.width;
}

function clamp(n: number, low: number, high: number): number {
  return Number.isFinite(n) ? Math.min(Math.max(Math.trunc(n), low), high) : low;
}
