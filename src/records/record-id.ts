/**
 * The record ID a command line names, checked before anything is sent. Two
 * checks with their own messages, as users know them: get and exists take a
 * positive number; create, update and delete any whole number (the service
 * answers 404 for 0).
 */
import type { ResourceFamily } from '../catalogue/index.js';
import { UsageError } from '../errors.js';
import { shown } from '../util/shown.js';

/** The ID of `get` and `exists`: a positive whole number, else a usage error. */
export function parseRecordId(text: string): string {
  if (!/^[1-9]\d{0,17}$/.test(text)) throw new UsageError(`invalid record ID '${shown(text, 40)}'; IDs are positive whole numbers`);
  // Past 2^53 − 1 no record can have it (the filter refuses ID = n there too); the service would answer 400.
  if (!Number.isSafeInteger(Number(text))) throw new UsageError(`invalid record ID '${shown(text, 40)}'; IDs are positive whole numbers up to ${Number.MAX_SAFE_INTEGER}`);
  return text;
}

/** The ID of `update` and `delete` as a path segment; a usage error unless a whole number. */
export function parseWriteId(family: ResourceFamily, text: string): string {
  if (!/^\d{1,18}$/.test(text)) throw new UsageError(`invalid ID '${shown(text, 40)}' for ${family.name}; give the record's whole-number ID`);
  // Past 2^53 − 1 no record can have it (the filter and get refuse it too); the service would answer 400.
  if (!Number.isSafeInteger(Number(text))) throw new UsageError(`invalid ID '${shown(text, 40)}' for ${family.name}; IDs are whole numbers up to ${Number.MAX_SAFE_INTEGER}`);
  return text;
}
