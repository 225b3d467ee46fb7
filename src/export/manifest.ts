/**
 * `FILE.manifest.json`: what an export holds and how to check it, put in
 * place with the file (see ManifestWriter for the order), with the file's
 * permissions (it names the filter: a private export's manifest stays private).
 */
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { SvcError } from '../errors.js';
import { ioReason, writeFailed } from '../util/io-error.js';
import { shown } from '../util/shown.js';
import { version } from '../version.js';
import { syncDir } from './atomic-file.js';
import type { ExportRequest } from './plan.js';

export interface Manifest {
  readonly file: string;
  readonly family: string;
  readonly format: string;
  /** Parquet only: how its pages are compressed ('gzip' or 'none'). */
  readonly compression?: 'gzip' | 'none';
  readonly rows: number;
  readonly bytes: number;
  readonly sha256: string;
  readonly filter: Record<string, unknown> | null;
  readonly fields: ExportRequest['fields'] | null;
  readonly shard: string | null;
  readonly serverSide: boolean;
  readonly startedAt: string;
  readonly endedAt: string;
  readonly svcVersion: string;
}

/** `FILE.manifest.json` */
export function manifestPath(target: string): string {
  return `${target}.manifest.json`;
}

/** Builds the manifest of a finished export. */
export function buildManifest(
  target: string,
  req: ExportRequest,
  done: { rows: number; bytes: number; sha256: string; startedAt: string; endedAt: string; serverSide?: boolean },
): Manifest {
  return {
    file: target,
    family: req.family,
    format: req.format,
    ...(req.format === 'parquet' ? { compression: req.codec === 'GZIP' ? ('gzip' as const) : ('none' as const) } : {}),
    rows: done.rows,
    bytes: done.bytes,
    sha256: done.sha256,
    filter: req.filter ?? null,
    fields: req.fields ?? null,
    shard: req.shard ? `${req.shard.index}/${req.shard.count}` : null,
    serverSide: done.serverSide === true,
    startedAt: done.startedAt,
    endedAt: done.endedAt,
    svcVersion: version,
  };
}

/**
 * The manifest of an export to `target`, put in place in an order after which
 * no crash leaves a manifest describing a file that is not there:
 *   1. stage: before the export is renamed, the manifest is written to
 *      `FILE.manifest.json.tmp` with the export's permissions and synced (a
 *      failure is kept, and reported once the export is in place);
 *   2. dropOld: just before the export's rename, the previous manifests (of
 *      the file about to be replaced: see dropManifests) are removed and the
 *      directories synced;
 *   3. the export is renamed into place (by its sink);
 *   4. place: the manifest is renamed into place and the directory synced.
 * The export first, then its manifest: a crash between 2 and 4 leaves the
 * file with no manifest beside it, never another file's. (The manifest first
 * would, on a crash before 3, describe a file that is not there.)
 */
export interface ManifestWriter {
  /** Writes and syncs the manifest's temporary file, with the permissions of `exportFile` (the partial file). Never throws. */
  stage(manifest: Manifest, exportFile: string): Promise<void>;
  /** Removes the previous manifests (dropManifests); throws (stopping the rename) when it cannot. */
  dropOld(): Promise<void>;
  /** Once the export is in place: renames the manifest beside it; else throws an SvcError (exit 1) saying what is in place and what is not. */
  place(rows: number): Promise<void>;
  /** The export was not put in place: the staged manifest goes. */
  discard(): void;
}

/** Removes a file if there is one (a directory is not removed: the error says so). */
function unlinkIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** The manifests an export to a file could have left: beside the name typed and, when that is a link, beside the file it points to. */
function manifestsOf(target: { readonly given: string; readonly path: string }): string[] {
  const beside = manifestPath(target.given);
  const behind = manifestPath(target.path);
  return resolve(beside) === resolve(behind) ? [beside] : [beside, behind];
}

/**
 * Removes, just before an export (with --manifest or not) is renamed over
 * `target`, every manifest that describes the file being replaced: svc's own,
 * which would now lie. Answers whether one was removed; throws an SvcError
 * (stopping the rename) when one cannot be. A directory there is no manifest.
 */
export async function dropManifests(target: { readonly given: string; readonly path: string }): Promise<boolean> {
  let dropped = false;
  for (const path of manifestsOf(target)) {
    try {
      unlinkSync(path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // None, or a directory: no manifest describes the file being replaced.
      if (code === 'ENOENT' || code === 'EISDIR') continue;
      throw new SvcError(`cannot remove ${shown(path)}, the manifest of the file this export replaces: ${ioReason(err)}`);
    }
    dropped = true;
    await syncDir(dirname(path));
  }
  return dropped;
}

/** The manifest is written beside the name typed (`target.given`), a link or not. */
export function createManifestWriter(target: { readonly given: string; readonly path: string }): ManifestWriter {
  const path = manifestPath(target.given);
  const tmp = `${path}.tmp`;
  let staged = false;
  let failure: SvcError | undefined;
  let dropped = false;
  const discard = (): void => {
    if (!staged) return;
    staged = false;
    try {
      rmSync(tmp, { force: true });
    } catch {
      // What cannot be removed is replaced by the next run's stage.
    }
  };
  return {
    async stage(manifest, exportFile) {
      try {
        // The export's permission bits, without execute: a 0600 export gets a 0600 manifest.
        const mode = (await stat(exportFile)).mode & 0o666;
        // Whatever is at the temporary name (a crashed run's, or a link someone put there) goes, never written through.
        unlinkIfThere(tmp);
        const fd = openSync(tmp, 'wx', mode);
        staged = true;
        try {
          fchmodSync(fd, mode);
          writeSync(fd, `${JSON.stringify(manifest, null, 2)}\n`);
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
      } catch (err) {
        failure = writeFailed(tmp, err);
        discard();
      }
    },
    async dropOld() {
      dropped = await dropManifests(target);
    },
    async place(rows) {
      if (!failure) {
        try {
          renameSync(tmp, path);
          staged = false;
          await syncDir(dirname(path));
          return;
        } catch (err) {
          failure = writeFailed(path, err);
          discard();
        }
      }
      const before = dropped ? 'the previous manifest was removed, as it described the file replaced' : 'no manifest is beside it';
      throw new SvcError(
        `${target.given} is in place (${rows.toLocaleString('en-US')} rows), but not its manifest: ${failure.message}; ${before}; no partial file or checkpoint is kept: run the export again for a manifest once that is fixed`,
      );
    },
    discard,
  };
}
