/**
 * File and stream failures in words: the thing that failed, why, and what to
 * do, instead of Node's "ENOSPC: no space left on device, write".
 */
import { SvcError } from '../errors.js';
import { shown } from './shown.js';

const ADVICE: Readonly<Record<string, string>> = {
  ENOSPC: 'free some space or write elsewhere',
  EDQUOT: 'free some space or write elsewhere',
  EFBIG: 'the file system cannot hold a file this large; write elsewhere',
  EACCES: 'check the permissions, or write elsewhere',
  EPERM: 'check the permissions, or write elsewhere',
  EROFS: 'the file system is read-only; write elsewhere',
  EPIPE: 'the reader went away before the end',
  EIO: 'the device failed; check it, or write elsewhere',
};

/** Why an I/O call failed: "no space left on device (ENOSPC)". */
export function ioReason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  if (!e?.code) return shown(message);
  // Node's form is "CODE: reason, syscall 'path'": keep the reason.
  const reason = message.startsWith(`${e.code}: `) ? message.slice(e.code.length + 2).split(', ')[0] : message;
  return `${shown(reason ?? '')} (${shown(String(e.code), 40)})`;
}

/** The error for a failed write to `what` (a file, or "standard output", shown as outside text): exit 1, one line with the fix. */
export function writeFailed(what: string, err: unknown): SvcError {
  if (err instanceof SvcError) return err;
  const advice = ADVICE[(err as NodeJS.ErrnoException)?.code ?? ''];
  return new SvcError(`cannot write to ${shown(what)}: ${ioReason(err)}${advice ? `; ${advice}` : ''}`);
}
