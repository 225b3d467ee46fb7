/**
 * JSON.stringify for output: a value nested too deeply for it (it recurses,
 * and runs out of stack some thousands of levels down) is a one-line error,
 * not a crash. Answers are refused far shallower (src/http/json-array.ts);
 * this covers values from anywhere else.
 */
import { SvcError } from '../errors.js';

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
