/**
 * JSON.stringify for output: a value nested too deeply for it (it recurses,
 * and runs out of stack some thousands of levels down) is a one-line error,
 * not a crash. Answers are refused far shallower (src/http/json-array.ts);
 * this covers values from anywhere else.
 */
import { SvcError } from '../errors.js';
import { ACTING } from '../util/shown.js';

/** `JSON.stringify(value, null, indent)`, or an SvcError naming the fault when the value nests too deeply. */
export function jsonText(value: unknown, indent?: number): string {
  try {
    return JSON.stringify(value, null, indent);
  } catch (err) {
    if (err instanceof RangeError && /call stack/i.test(err.message)) {
      throw new SvcError('a value nests too deeply (thousands of levels) to be written out; svc cannot show it');
    }
    throw err;
  }
}

/**
 * JSON text for a terminal: each character that would act on it (src/util/shown.ts's ACTING) as a \uXXXX
 * escape. JSON.stringify escapes C0 controls in strings itself, so those left are its own line breaks and
 * stay; DEL, C1, U+2028/2029 and the bidi controls it writes raw, and they can only stand inside strings,
 * where the escape is the same JSON value.
 */
export function terminalJson(text: string): string {
  return text.replace(ACTING, (ch) => {
    const code = ch.charCodeAt(0);
    return code < 0x20 ? ch : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
