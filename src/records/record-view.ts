/**
 * One record as a view, the same wherever a record is shown (`get`, and what
 * `create` and `update` answer): as data the service's object unchanged; on a
 * terminal one field a row, enum values by name and timestamps as dates in the
 * time zone asked for (columns.ts's displayText, as query tables show them),
 * extdata and tags as JSON.
 */
import type { ResourceFamily } from '../catalogue/index.js';
import type { ObjectView } from '../output/view.js';
import { displayText, fieldOfPath } from './columns.js';

/** A record returned by the service as an object view. */
export function recordView(family: ResourceFamily, record: Readonly<Record<string, unknown>>, tz?: string): ObjectView {
  const details = Object.entries(record).map(([k, v]): [string, string] => {
    if (k === 'extdata' || k === 'tags') return [k, JSON.stringify(v)];
    return [k, displayText(fieldOfPath(family, k), v, tz)];
  });
  return { kind: 'object', value: record, details };
}
