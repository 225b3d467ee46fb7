/**
 * The ID argument of get and exists: a positive whole number
 * (src/records/record-id.ts) that is also exact as a JSON number, as the
 * filter language takes `ID = n` — past 2^53 − 1 no record can have it, and the
 * service would answer 400 after a round trip.
 */
import { UsageError } from '../../errors.js';
import { parseRecordId } from '../../records/record-id.js';

/** The ID as the path segment to send, else a UsageError naming it. */
export function toRecordIdArg(text: string): string {
  const id = parseRecordId(text);
  if (!Number.isSafeInteger(Number(id))) throw new UsageError(`invalid record ID '${id}'; IDs are positive whole numbers up to ${Number.MAX_SAFE_INTEGER}`);
  return id;
}
