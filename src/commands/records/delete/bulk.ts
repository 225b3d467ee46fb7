/**
 * One record of `delete --filter`: DELETE with If-Match of the ETag it was
 * read with. The HTTP client retries it (a DELETE with If-Match is safe to
 * repeat), so a 404 means it is gone (by a try whose answer was lost, or by
 * someone else): done. 412: it changed meanwhile and is kept, reported.
 */
import type { ResourceFamily } from '../../../catalogue/index.js';
import type { ResultLine } from '../../../import/results.js';
import type { ReadRecord, RecordWriting } from '../write-by-filter.js';
import { failureOf } from '../write-bulk.js';
import { writeRecord } from '../write-send.js';

export async function deleteOne(family: ResourceFamily, w: RecordWriting, read: ReadRecord): Promise<ResultLine> {
  const id = Number(read.id);
  try {
    const a = await writeRecord(w.client, family, read.id, { method: 'DELETE', ifMatch: read.etag, signal: w.stop.signal });
    return { action: 'delete', id, status: a.status ?? null, etag: null, error: null };
  } catch (err) {
    const f = failureOf(err);
    if (f.kind === 'answered' && f.status === 404) return { action: 'delete', id, status: 404, etag: null, error: null };
    const why =
      f.kind !== 'answered'
        ? `${f.message}; run again to retry it`
        : f.status === 412
          ? `it changed since it was read (ETag ${read.etag}); kept: check it and run again`
          : f.status === 409
            ? `others depend on it (${f.message}); delete or change them first`
            : f.message;
    return { action: 'delete', id, status: f.kind === 'answered' ? f.status : null, etag: null, error: why };
  }
}
