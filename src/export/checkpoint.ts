/**
 * The checkpoint beside an export's target (`FILE.svc-checkpoint.json`): the
 * request, the ID range with the last ID written, the rows and bytes written
 * so far, and the sha256 of those bytes. Pages are written in ID order, so
 * everything up to `last` is in the partial file. It is replaced atomically
 * (at most once a second, and when a run stops), after the partial file is
 * flushed, so it never claims more than is there; --resume cuts the partial
 * file back to it. It carries a checksum of itself: a damaged or hand-edited
 * checkpoint is refused rather than trusted (a wrong `last` would duplicate
 * or skip rows), and so is a partial file whose prefix no longer hashes to
 * what the checkpoint says.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { writeFailed } from '../util/io-error.js';
import { shown } from '../util/shown.js';
import { canonicalJson, exportFormats, type ExportRequest, type IdRange } from './plan.js';
import { isGroupMeta, type GroupMeta } from './parquet/footer.js';

/** The checkpoint format version; another version is refused. */
export const CHECKPOINT_VERSION = 3;

/** Progress in the export's ID range. */
export interface RangeState extends IdRange {
  /** The last ID written (the range's start when none). */
  last: number;
}

/**
 * A Parquet export's progress beyond the bytes: the row-group limits it cuts
 * at, and the metadata of the row groups in the partial file (parquet/footer.ts
 * GroupMeta), from which the footer is written at the end.
 */
export interface ParquetProgress {
  readonly rowGroupRows: number;
  readonly rowGroupBytes: number;
  readonly rowGroups: GroupMeta[];
}

export interface Checkpoint {
  readonly version: number;
  /** Fingerprint of the command line that started the export. */
  readonly key: string;
  /** The command line, for messages. */
  readonly command: string;
  readonly request: ExportRequest;
  readonly range: RangeState;
  rows: number;
  bytes: number;
  /** sha256 of the partial file's first `bytes` bytes. */
  partialSha256: string;
  readonly startedAt: string;
  /** Format parquet only. */
  readonly parquet?: ParquetProgress;
}

/** `FILE.svc-checkpoint.json` */
export function checkpointPath(target: string): string {
  return `${target}.svc-checkpoint.json`;
}

/** The checksum a saved checkpoint carries: sha256 of its canonical JSON without the checksum. */
function checksum(ck: Checkpoint): string {
  return createHash('sha256').update(canonicalJson(ck)).digest('hex');
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Whether a parsed checkpoint has every member, of the right kind, and agrees with itself. */
function isWhole(ck: Partial<Checkpoint> & { check?: unknown }): ck is Checkpoint {
  const r = ck.range;
  const req = ck.request;
  return (
    typeof ck.key === 'string' &&
    typeof ck.command === 'string' &&
    typeof ck.startedAt === 'string' &&
    isCount(ck.rows) &&
    isCount(ck.bytes) &&
    typeof ck.partialSha256 === 'string' &&
    /^[0-9a-f]{64}$/.test(ck.partialSha256) &&
    typeof r === 'object' && r !== null &&
    isCount(r.after) && isCount(r.last) && r.last >= r.after &&
    (r.upTo === null || (isCount(r.upTo) && r.upTo >= r.after)) &&
    typeof req === 'object' && req !== null &&
    typeof req.family === 'string' &&
    exportFormats.includes(req.format) &&
    Array.isArray(req.columns) &&
    (req.format === 'parquet') === (ck.parquet !== undefined) &&
    (req.codec === undefined || req.codec === 'GZIP' || req.codec === 'UNCOMPRESSED') &&
    (req.format !== 'parquet' || (Array.isArray(req.parquet) && req.parquet.length === req.columns.length && isParquetProgress(ck.parquet, req.columns.length)))
  );
}

/** Whether a parsed checkpoint's Parquet part is whole: positive limits, row groups as objects, a column list per column. */
function isParquetProgress(p: unknown, columns: number): boolean {
  if (typeof p !== 'object' || p === null) return false;
  const { rowGroupRows, rowGroupBytes, rowGroups } = p as Partial<ParquetProgress>;
  return (
    isCount(rowGroupRows) && rowGroupRows > 0 &&
    isCount(rowGroupBytes) && rowGroupBytes > 0 &&
    Array.isArray(rowGroups) &&
    rowGroups.every((g) => isGroupMeta(g, columns))
  );
}

/** The checkpoint for a target, or undefined when there is none; a usage error (exit 2) when it cannot be trusted. */
export function readCheckpoint(target: string): Checkpoint | undefined {
  const path = checkpointPath(target);
  const damaged = new UsageError(`the checkpoint ${shown(path)} is damaged or was edited; remove it (and ${shown(`${target}.svc-partial`)}) to start the export again`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let parsed: Partial<Checkpoint> & { check?: unknown };
  try {
    parsed = JSON.parse(text) as Partial<Checkpoint> & { check?: unknown };
  } catch {
    throw damaged;
  }
  if (typeof parsed !== 'object' || parsed === null) throw damaged;
  if (parsed.version !== CHECKPOINT_VERSION) {
    throw new UsageError(`the checkpoint ${shown(path)} was written by another version of svc; remove it (and ${shown(`${target}.svc-partial`)}) to start the export again`);
  }
  const { check, ...rest } = parsed;
  if (!isWhole(rest) || check !== checksum(rest)) throw damaged;
  return rest;
}

/** Refuses a checkpoint made by a different command line (its key none of `keys`: this one's, and older spellings of it). */
export function checkSameRequest(ck: Checkpoint, keys: readonly string[], command: string, target: string): void {
  if (keys.includes(ck.key)) return;
  throw new UsageError(
    `the checkpoint ${checkpointPath(target)} belongs to a different export (${ck.command}), not this one (${command}); ` +
      'run that command with --resume, or run without --resume to start again',
  );
}

/** Writes the checkpoint atomically (a temporary file, then a rename), readable by its owner only. */
export function saveCheckpoint(target: string, ck: Checkpoint): void {
  const path = checkpointPath(target);
  try {
    writeFileSync(`${path}.tmp`, `${JSON.stringify({ ...ck, check: checksum(ck) })}\n`, { mode: 0o600 });
    renameSync(`${path}.tmp`, path);
  } catch (err) {
    rmSync(`${path}.tmp`, { force: true });
    throw writeFailed(path, err);
  }
}

/** Removes the checkpoint (after the export is complete). */
export function removeCheckpoint(target: string): void {
  rmSync(checkpointPath(target), { force: true });
  rmSync(`${checkpointPath(target)}.tmp`, { force: true });
}
