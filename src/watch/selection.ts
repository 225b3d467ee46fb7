/**
 * What a watch asks the service for: the user's fields (every field when none
 * were chosen) with the ID and `lastmodified` always among them, the keys
 * they come under, and the keys to leave out of a record (`lastmodified`
 * when only the watch needed it).
 */
import { withoutKey } from '../export/encode.js';
import type { Row } from '../output/view.js';

export interface Selection {
  /** The `fields` member (alias → path); absent: every field. */
  readonly fields?: Readonly<Record<string, string>>;
  readonly idKey: string;
  readonly lmKey: string;
  /** Keys the service answers that the user did not ask for. */
  readonly strip: readonly string[];
}

/** The selection for the user's fields (object form alias → path, as the query body has it). */
export function watchSelection(fields: Readonly<Record<string, string>> | undefined): Selection {
  if (!fields) return { idKey: 'ID', lmKey: 'lastmodified', strip: [] };
  const map: Record<string, string> = { ...fields };
  const strip: string[] = [];
  const keyOf = (path: string, preferred: string, spare: string, keep: boolean): string => {
    const alias = Object.entries(map).find(([, p]) => p === path)?.[0];
    if (alias !== undefined) return alias;
    const key = Object.prototype.hasOwnProperty.call(map, preferred) ? spare : preferred;
    map[key] = path;
    // The ID is part of every record, as the user would have it; a spare key never is.
    if (!keep || key === spare) strip.push(key);
    return key;
  };
  const idKey = keyOf('ID', 'ID', '__svc_id', true);
  const lmKey = keyOf('lastmodified', 'lastmodified', '__svc_lm', false);
  return { fields: map, idKey, lmKey, strip };
}

/** A record as the feed shows it: without the keys only the watch needed. */
export function shownRecord(row: Row, sel: Selection): Row {
  let out = row;
  for (const key of sel.strip) out = withoutKey(out, key);
  return out;
}
