/** --if-match and --if-none-match: an ETag as a header can carry it, checked before anything is sent. */
import { UsageError } from '../../errors.js';
import { shown } from '../../util/shown.js';

/** The ETag given to `flag`, else a usage error naming the flag (a line break or a control character cannot go in a header). */
export function etagFlag(flag: '--if-match' | '--if-none-match', value: string | undefined): string | undefined {
  if (value === undefined || /^[\x20-\x7e]+$/.test(value)) return value;
  throw new UsageError(`${flag} takes an ETag as get --verbose shows it (printable ASCII, e.g. '"abc"'), not ${shown(JSON.stringify(value), 80)}`);
}
