/**
 * A native module that did not load: better-sqlite3 (SQLite copies, the
 * sandbox) and re2 (the sandbox) are compiled when installed, so an install
 * with --ignore-scripts, or one built for another Node.js, has their
 * JavaScript but not their compiled part. Said in one line with the fix, not
 * as the file svc was given or an unexpected error.
 */
import { SvcError } from '../errors.js';

/** The compiled modules svc uses, by package name. */
export type NativeModule = 'better-sqlite3' | 're2';

/** Whether `err` is a native module failing to load (not compiled here, or compiled for another Node.js). */
export function isNativeLoadFailure(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  const message = typeof e?.message === 'string' ? e.message : '';
  return (
    e?.code === 'ERR_DLOPEN_FAILED' ||
    /Could not locate the bindings file|NODE_MODULE_VERSION|compiled against a different Node\.js version|invalid ELF header/.test(message) ||
    (e?.code === 'MODULE_NOT_FOUND' && /'(better-sqlite3|re2)'/.test(message))
  );
}

/** Exit 1: what needs the module, that this install lacks its compiled part, and how to build it (`or` another way, when there is one). */
export function nativeModuleError(modules: readonly NativeModule[], what: string, or = ''): SvcError {
  const names = modules.join(' and ');
  return new SvcError(
    `${what} needs the compiled part of ${names}, which this install lacks (installed with --ignore-scripts, or built for another Node.js): run 'npm rebuild ${modules.join(' ')}' where svc is installed${or ? `, or ${or}` : ''}`,
  );
}
