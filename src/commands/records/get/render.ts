/** How `svc <family> get` shows a record: one field a row on a terminal (enum names, dates), the service's object as data. */
import type { ResourceFamily } from '../../../catalogue/index.js';
import type { ObjectView } from '../../../output/view.js';
import { recordView } from '../../../records/record-view.js';

/** The record view (src/records/record-view.ts), shared with what create and update answer. */
export function getView(family: ResourceFamily, record: Record<string, unknown>, tz?: string): ObjectView {
  return recordView(family, record, tz);
}

/** What stderr says when the record still has the ETag of --if-none-match. */
export function unchangedNotice(family: ResourceFamily, id: string, etag: string): string {
  return `${family.name} ${id} is unchanged (ETag ${etag})\n`;
}
