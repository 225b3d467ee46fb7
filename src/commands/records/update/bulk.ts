/**
 * One record of `update --filter`: left alone when it already holds the
 * values; else PATCH with If-Match of the ETag it was read with (412: changed
 * meanwhile, reported). When the answer is lost the record is read again: it
 * holds the values (updated), or still has the old ETag (sent again), or it
 * changed (reported).
 */
import type { ResourceFamily } from '../../../catalogue/index.js';
import { holdsValues } from '../../../import/lookup.js';
import type { ResultLine } from '../../../import/results.js';
import type { RecordBody } from '../../../records/convert.js';
import type { ReadRecord, RecordWriting } from '../write-by-filter.js';
import { failureOf } from '../write-bulk.js';
import { writeRecord } from '../write-send.js';

/** Tries of a PATCH whose answer was lost and whose record still has its old ETag. */
const TRIES = 3;

export async function updateOne(family: ResourceFamily, body: RecordBody, w: RecordWriting, read: ReadRecord): Promise<ResultLine> {
  const id = Number(read.id);
  if (holdsValues(family, body, read.record)) return { action: 'unchanged', id, status: null, etag: read.etag, error: null };
  for (let attempt = 1; ; attempt++) {
    try {
      const a = await writeRecord(w.client, family, read.id, { method: 'PATCH', json: body, ifMatch: read.etag, signal: w.stop.signal });
      return { action: 'update', id, status: a.status ?? null, etag: a.etag ?? null, error: null };
    } catch (err) {
      const f = failureOf(err);
      if (f.kind === 'answered') {
        const why = f.status === 412 ? `it changed since it was read (ETag ${read.etag}); not overwritten: check it and run again` : f.message;
        return { action: 'update', id, status: f.status, etag: null, error: why };
      }
      if (w.stop.signal.aborted || attempt >= TRIES) return { action: 'update', id, status: null, etag: null, error: `${f.message}; run again to retry it` };
    }
    // The answer was lost (or never came): what does the record hold now?
    const now = await w.reread(read.id).catch(() => undefined);
    if (!now) return { action: 'update', id, status: null, etag: null, error: 'the answer was lost and the record cannot be read now; run again to retry it' };
    if (holdsValues(family, body, now.record)) return { action: 'update', id, status: null, etag: now.etag || null, error: null };
    if (!now.etag) return { action: 'update', id, status: null, etag: null, error: 'the answer was lost and the record, read again, has no ETag to send it with; not sent again: check it' };
    if (now.etag !== read.etag) return { action: 'update', id, status: null, etag: now.etag, error: 'the answer was lost and the record has changed since (by this update, or by someone else); not sent again: check it' };
  }
}
