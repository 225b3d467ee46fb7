/**
 * An export as a Parquet file, written as pages arrive: records are turned
 * into column data as they come (in the chunk that fetched them, off the
 * JavaScript heap: pages.ts), held up to a row group (the checkpoint's
 * rowGroupRows records or rowGroupBytes of encoded values, whichever comes
 * first, counted record by record), and each row group is encoded
 * (row-group.ts) and written to the sink as soon as it is complete; the
 * footer (schema and row-group metadata: footer.ts) follows the last.
 *
 * The values are ours, hyparquet-writer's ParquetWriter is not used: it
 * takes a row group as arrays of JavaScript values (a BigInt, a string, an
 * entry per cell) and builds per-value statistics and dictionaries; an
 * export of 100k accounts spent more time collecting that garbage than
 * writing (1.9x the CSV export's time). The format's Thrift structures (the
 * page headers and the footer's FileMetaData) are hyparquet-writer's
 * (writePageHeader, writeMetadata), bundled apart in dist/chunks/parquet.cjs
 * and loaded by the first row group or footer (libs.ts), so no other command
 * reads them.
 *
 * Row groups end at the same records whatever the pages were (page halving,
 * chunks fetched in parallel), so a run writes the same bytes at any
 * concurrency, and a resumed run the same bytes as one never stopped.
 *
 * The checkpoint describes complete row groups only: its `last` ID, rows,
 * bytes and sha256 advance when a row group is written, and it carries the
 * row groups' metadata, from which a resumed run writes the footer.
 */
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { SvcError } from '../../errors.js';
import { version } from '../../version.js';
import type { Checkpoint } from '../checkpoint.js';
import type { FormatWriter } from '../format.js';
import type { Sink } from '../sink.js';
import { columnDigest, PagePool, type ColumnPage } from './pages.js';
import { footer, MAGIC, type Codec, type GroupMeta } from './footer.js';
import { parquetLibs } from './libs.js';
import { encodeRowGroup, type Slice } from './row-group.js';

/**
 * Compression of the data pages, as the request says (`--compression`):
 * GZIP level 1 by default, through Node's zlib on its own threads while the
 * next pages arrive; none for the checkpoints made before there was a choice.
 * Measured with bench/parquet.mjs, every field, --concurrency 4: at 100k
 * accounts 1.13x the CSV export's time and 2.5 MB (uncompressed 1.05x and
 * 15.9 MB; the CSV file 12.7 MB). Snappy is not in Node, and the JavaScript
 * one hyparquet-writer carries ran at 77 MB/s here: about 2 s more at 1M.
 */
const gzipAsync = promisify(gzip);
const compress = (data: Buffer): Promise<Buffer> => gzipAsync(data, { level: 1 });

/**
 * A writer of the export described by `state` (its request's Parquet columns)
 * to `sink`, continuing after the row groups the checkpoint holds when the
 * sink holds them already.
 */
export async function createParquetWriter(state: Checkpoint, sink: Sink, idKey: string): Promise<FormatWriter<ColumnPage>> {
  const columns = state.request.parquet;
  const codec: Codec = state.request.codec ?? 'UNCOMPRESSED';
  const progress = state.parquet;
  if (!columns || !progress) throw new Error('a parquet export needs its columns and progress');
  // hyparquet-writer's chunk, loaded before anything is written: a missing chunk fails the export at once.
  await parquetLibs();
  const groups = progress.rowGroups as GroupMeta[];
  if (groups.reduce((n, g) => n + g.rows, 0) !== state.rows) {
    throw new SvcError('the checkpoint does not agree with itself (rows and row groups); run without --resume to start again');
  }

  const pool = new PagePool(columns);
  let pending: Slice[] = [];
  let pendingRows = 0;
  let pendingBytes = 0;
  let seen = state.rows;

  /** Encodes and writes the pending records as one row group; the state then says so. */
  const flush = async (): Promise<void> => {
    if (pendingRows === 0) return;
    const rows = pendingRows;
    const slices = pending;
    pending = [];
    pendingRows = 0;
    pendingBytes = 0;
    const lastSlice = slices[slices.length - 1] as Slice;
    const last = lastSlice.page.ids[lastSlice.to - 1] as number;
    const { bytes, group } = await encodeRowGroup(columns, slices, rows, sink.bytes, codec, compress);
    // The group's bytes are copies: a page whose last records are in it can take new ones (read nothing from it after).
    for (const slice of slices) if (slice.to === slice.page.count) pool.give(slice.page);
    await sink.write(bytes);
    state.rows += rows;
    state.bytes = sink.bytes;
    state.partialSha256 = sink.digestSoFar();
    state.range.last = last;
    groups.push(group);
  };

  return {
    get seen() {
      return seen;
    },
    newDigest: () => columnDigest(columns, idKey, pool),
    async head() {
      await sink.write(MAGIC);
    },
    async page({ item }) {
      const count = item.count;
      seen += count;
      let from = 0;
      for (let r = 0; r < count; r++) {
        pendingRows++;
        pendingBytes += item.sizes[r] as number;
        if (pendingRows >= progress.rowGroupRows || pendingBytes >= progress.rowGroupBytes) {
          pending.push({ page: item, from, to: r + 1 });
          from = r + 1;
          await flush();
        }
      }
      if (from < count) pending.push({ page: item, from, to: count });
    },
    async end() {
      await flush();
      await sink.write(await footer(columns, groups, codec, `svc ${version}`));
    },
  };
}
