/**
 * Errors of the filter language are values, never exceptions: a one-line
 * message and the span of the expression it concerns.
 */

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

/** A failed result with a message (kept on one line: control characters are escaped) and span. */
export function fail<T = never>(message: string, start: number, end: number): Result<T> {
  const line = message.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return { ok: false, error: { message: line, start, end } };
}

/**
 * The error as three lines: the message, the expression (indented two
 * spaces, line breaks and tabs shown as spaces so offsets stay aligned) and a
 * caret line under the span (at least one caret, one past the end for a
 * span at the end). An empty expression gives two lines: the message and a caret.
 */
export function renderFilterError(text: string, error: FilterError): string {
  const start = clamp(error.start, 0, text.length);
  const end = clamp(error.end, start, text.length);
  const width = Math.max(1, end - start);
  const caret = `  ${' '.repeat(start)}${'^'.repeat(width)}`;
  if (text.length === 0) return `${error.message}\n${caret}`;
  const shown = text.replace(/[\u0000-\u001f\u007f]/g, ' ');
  return `${error.message}\n  ${shown}\n${caret}`;
}

function clamp(n: number, low: number, high: number): number {
  return Number.isFinite(n) ? Math.min(Math.max(Math.trunc(n), low), high) : low;
}
