/** How `svc <family> get` shows a record: one field a row on a terminal (enum names, dates), the service's object as data. */
import type { ResourceFamily } from '../../../catalogue/index.js';
import type { ObjectView } from '../../../output/view.js';
import { displayText, fieldOfPath } from '../../../records/columns.js';

export function getView(family: ResourceFamily, record: Record<string, unknown>, tz?: string): ObjectView {
  const details = Object.entries(record).map(([k, v]): [string, string] => {
    if (k === 'extdata' || k === 'tags') return [k, JSON.stringify(v)];
    return [k, displayText(fieldOfPath(family, k), v, tz)];
  });
  return { kind: 'object', value: record, details };
}

/** What stderr says when the record still has the ETag of --if-none-match. */
export function unchangedNotice(family: ResourceFamily, id: string, etag: string): string {
  return `${family.name} ${id} is unchanged (ETag ${etag})\n`;
}
