/**
 * Outside text (a file's content, an engine's error, a value, an environment
 * variable) as svc's messages and tables may show it, so that it cannot act
 * on the terminal: no control characters (C0, DEL, C1, whose 0x9b starts an
 * escape sequence on some terminals), no line or paragraph separators, and no
 * bidirectional embeddings, overrides or isolates, which reorder what follows.
 */

/** The characters that act on a terminal instead of showing. */
// eslint-disable-next-line no-control-regex
export const ACTING = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Half of a surrogate pair without its other half (a JSON parser quotes one, a cut splits one): no character at all. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Text as part of a one-line message: cut at `max` characters (with …), each acting character as '?', and
 * each lone half of a surrogate pair too (written out it would be U+FFFD, in a pipe what a test compares).
 */
export function shown(text: string, max = 200): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  return cut.replace(ACTING, '?').replace(LONE_SURROGATE, '?');
}
