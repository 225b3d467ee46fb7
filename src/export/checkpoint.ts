/**
 * The checkpoint beside an export's target (`FILE.svc-checkpoint.json`): the
 * request, the ID range with the last ID written, and the rows and bytes
 * written so far. Pages are written in ID order, so everything up to `last`
 * is in the partial file. It is replaced atomically (at most once a second,
 * and when a run stops), after the partial file is flushed, so it never
 * claims more than is there; --resume cuts the partial file back to it.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { UsageError } from '../errors.js';
import type { ExportRequest, IdRange } from './plan.js';

/** The checkpoint format version; another version is refused. */
const VERSION = 2;

/** Progress in the export's ID range. */
export interface RangeState extends IdRange {
  /** The last ID written (the range's start when none). */
  last: number;
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
  readonly startedAt: string;
}

/** `FILE.svc-checkpoint.json` */
export function checkpointPath(target: string): string {
  return `${target}.svc-checkpoint.json`;
}

/** The checkpoint for a target, or undefined when there is none. */
export function readCheckpoint(target: string): Checkpoint | undefined {
  const path = checkpointPath(target);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let ck: Checkpoint;
  try {
    ck = JSON.parse(text) as Checkpoint;
  } catch {
    throw new UsageError(`the checkpoint ${path} is damaged; remove it (and ${target}.svc-partial) to start the export again`);
  }
  if (ck.version !== VERSION || typeof ck.range?.last !== 'number') {
    throw new UsageError(`the checkpoint ${path} was written by another version of svc; remove it to start the export again`);
  }
  return ck;
}

/** Refuses a checkpoint made by a different command line. */
export function checkSameRequest(ck: Checkpoint, key: string, command: string, target: string): void {
  if (ck.key === key) return;
  throw new UsageError(
    `the checkpoint ${checkpointPath(target)} belongs to a different export ('${ck.command}'), not '${command}'; ` +
      'run that command with --resume, or run without --resume to start again',
  );
}

/** Writes the checkpoint atomically (a temporary file, then a rename). */
export function saveCheckpoint(target: string, ck: Checkpoint): void {
  const path = checkpointPath(target);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(ck)}\n`);
  renameSync(`${path}.tmp`, path);
}

/** Removes the checkpoint (after the export is complete). */
export function removeCheckpoint(target: string): void {
  rmSync(checkpointPath(target), { force: true });
  rmSync(`${checkpointPath(target)}.tmp`, { force: true });
}
