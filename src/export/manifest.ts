/**
 * `FILE.manifest.json`: what an export holds and how to check it, written
 * atomically beside the file after the file is in place.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { version } from '../version.js';
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

/** Writes the manifest beside the target (temporary file, then rename). */
export function writeManifest(target: string, manifest: Manifest): void {
  const path = manifestPath(target);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}
