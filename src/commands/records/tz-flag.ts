/**
 * --tz of the record verbs, read and checked in one place: every verb that
 * takes it (query, count, sum, export, watch, sync, get, create, update,
 * import) reads it with toTimeZone, so an unknown zone is a usage error
 * before anything is read or sent, never a late "Invalid time zone" from the
 * runtime after the request.
 */
import { str, type CommandInput } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { isTimeZone } from '../../records/timestamp.js';
import { shown } from '../../util/shown.js';

/** --tz: a time zone the runtime knows (an IANA name such as Europe/Berlin, or UTC), else a UsageError; undefined when not given. */
export function toTimeZone(flags: CommandInput['flags']): string | undefined {
  const tz = str(flags, 'tz');
  if (tz !== undefined && !isTimeZone(tz)) {
    throw new UsageError(`unknown time zone '${shown(JSON.stringify(tz).slice(1, -1), 80)}' for --tz; use an IANA name such as Europe/Berlin or UTC`);
  }
  return tz;
}
