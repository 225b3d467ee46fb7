/**
 * What `--output FILE` names, looked at before anything is sent or written.
 * A regular file, or a name for a new one, gets the atomic treatment (a
 * partial file beside it, renamed over it). A symbolic link stays a link: the
 * file it points to gets the export, atomically. A character device or a FIFO
 * (/dev/null, /dev/stdout, a named pipe), or a path through /dev/fd or
 * /proc/…/fd, is written straight through: no partial file, no rename.
 */
import { lstat, readlink, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { ioReason } from '../util/io-error.js';
import { shown } from '../util/shown.js';

export type OutputTarget =
  /** `path` is where the file lives (the end of any symbolic links); `given` is what the user typed. */
  | { readonly kind: 'file'; readonly given: string; readonly path: string }
  /** Written straight through; `what` names it for messages ("a character device", "a FIFO"). */
  | { readonly kind: 'stream'; readonly given: string; readonly path: string; readonly what: string; readonly fifo: boolean }
  /** This process's own standard output (/dev/stdout, /dev/fd/1): written as without --output, whatever it is (even a socket, which cannot be reopened). */
  | { readonly kind: 'stdout'; readonly given: string; readonly what: 'standard output' };

/** Symbolic links followed before giving up, as the kernel does (ELOOP). */
const MAX_LINKS = 40;
/** A descriptor path (/dev/fd/1, /proc/self/fd/1): it reopens what the descriptor is, never a place to rename into. */
const DESCRIPTOR = /^\/(?:dev|proc\/[^/]+)\/fd\/\d+$/;
/** This process's standard output by a descriptor path. */
const OWN_STDOUT = /^\/(?:dev|proc\/self)\/fd\/1$/;

function code(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException).code;
}

/** The end of the chain of symbolic links starting at `path` (which may not exist), and whether it passed a descriptor path. */
async function followLinks(given: string): Promise<{ path: string; descriptor: boolean }> {
  let path = resolve(given);
  for (let hops = 0; hops <= MAX_LINKS; hops++) {
    if (DESCRIPTOR.test(path)) return { path, descriptor: true };
    let st: Stats;
    try {
      st = await lstat(path);
    } catch (err) {
      if (code(err) === 'ENOENT' || code(err) === 'ENOTDIR') return { path, descriptor: false };
      throw err;
    }
    if (!st.isSymbolicLink()) return { path, descriptor: false };
    path = resolve(dirname(path), await readlink(path));
  }
  throw new UsageError(`--output ${shown(given)}: too many levels of symbolic links; point it at a file`);
}

/** The directory a new file would go to must exist. */
async function checkDirectory(given: string, path: string): Promise<void> {
  const dir = dirname(path);
  const st = await stat(dir).catch((err: unknown) => {
    if (code(err) === 'ENOENT') throw new UsageError(`--output ${shown(given)}: the directory ${shown(dir)} does not exist; create it or choose another file`);
    if (code(err) === 'ENOTDIR') throw new UsageError(`--output ${shown(given)}: a part of ${shown(dir)} is not a directory; choose another file`);
    throw err;
  });
  if (!st.isDirectory()) throw new UsageError(`--output ${shown(given)}: ${shown(dir)} is not a directory; choose another file`);
}

function streamKind(st: Stats): string | undefined {
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isFIFO()) return 'a FIFO';
  return undefined;
}

/** The names svc gives its own working files beside a target: never a target themselves. */
const WORKING_FILE = /\.svc-(?:partial|checkpoint\.json|lock)(?:\.[0-9a-f]+\.(?:tmp|stale)|\.tmp)?$/;

/** Looks at what `--output` names; a usage error (exit 2) when svc cannot write an export there. */
export async function resolveOutput(given: string): Promise<OutputTarget> {
  if (/[\\/]$/.test(given)) throw new UsageError(`--output ${shown(given)} ends in a slash, which names a directory; name a file`);
  try {
    const target = await lookAt(given);
    const path = target.kind === 'stdout' ? '' : target.path;
    if (WORKING_FILE.test(given) || WORKING_FILE.test(path)) {
      throw new UsageError(`--output ${shown(given)} is a working file of another export (partial file, checkpoint or lock); name the export's own file`);
    }
    return target;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--output ${shown(given)}: ${ioReason(err)}; choose another file`);
  }
}

async function lookAt(given: string): Promise<OutputTarget> {
  const { path, descriptor } = await followLinks(given);
  let st: Stats | undefined;
  try {
    st = await stat(path);
  } catch (err) {
    if (code(err) !== 'ENOENT') throw err;
  }
  if (descriptor && OWN_STDOUT.test(path)) return { kind: 'stdout', given, what: 'standard output' };
  if (descriptor) {
    if (!st) throw new UsageError(`--output ${shown(given)}: ${shown(path)} is not an open descriptor; choose a file`);
    return { kind: 'stream', given, path: given, what: streamKind(st) ?? 'a descriptor', fifo: st.isFIFO() };
  }
  if (!st) {
    await checkDirectory(given, path);
    return { kind: 'file', given, path };
  }
  if (st.isFile()) return { kind: 'file', given, path };
  const what = streamKind(st);
  if (what) return { kind: 'stream', given, path, what, fifo: st.isFIFO() };
  if (st.isDirectory()) throw new UsageError(`--output ${shown(given)} is a directory; name a file in it, e.g. ${shown(resolve(path, 'export.csv'))}`);
  const kind = st.isBlockDevice() ? 'a block device' : st.isSocket() ? 'a socket' : 'not a regular file';
  throw new UsageError(`--output ${shown(given)} is ${kind}; svc writes exports to regular files, character devices (/dev/null) and FIFOs`);
}
