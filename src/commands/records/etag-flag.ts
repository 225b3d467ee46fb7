/** --if-match and --if-none-match: an ETag as a header can carry it, checked before anything is sent. */
import { UsageError } from '../../errors.js';
import { shown } from '../../util/shown.js';

/**
 * The longest ETag svc sends. ETags are short tags (a hash or a version, tens of characters); a value far
 * longer is a mistake (a file's content, a pasted body) and would only make the service refuse the header
 * (431), so it is refused before anything is sent. 1,024 leaves room for any ETag a service mints.
 */
export const MAX_ETAG_CHARS = 1024;

/** The ETag given to `flag`, else a usage error naming the flag (a line break or a control character cannot go in a header). */
export function etagFlag(flag: '--if-match' | '--if-none-match', value: string | undefined): string | undefined {
  if (value === undefined) return value;
  if (!value.trim()) {
    // The same words as the write says without --dry-run (write-send.ts), so a dry run refuses what the run refuses.
    if (flag === '--if-match') throw new UsageError('an empty If-Match is no precondition; give the ETag the record was read with');
    throw new UsageError(`${flag} is given a blank value; give the ETag the record was read with (get --verbose shows it), or leave ${flag} out`);
  }
  if (!/^[\x20-\x7e]+$/.test(value)) {
    throw new UsageError(`${flag} takes an ETag as get --verbose shows it (printable ASCII, e.g. '"abc"'), not ${shown(JSON.stringify(value), 80)}`);
  }
  if (value.length > MAX_ETAG_CHARS) {
    throw new UsageError(`${flag} takes an ETag of at most ${MAX_ETAG_CHARS} characters, and this one has ${value.length}; give the ETag get --verbose shows`);
  }
  return value;
}
