/**
 * The opt-in plain-file store (`svc login --insecure-storage`): one JSON file
 * of secrets, mode 0600, beside the config. A store warns on stderr, in one
 * line, the first time a secret is read from it or written to it (a command
 * opens one store, so that is once per command); svc never falls back to it
 * silently.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, platform } from 'node:os';
import { basename, dirname, join, sep } from 'node:path';
import { readOwnFile, withoutBom } from '../config/own-file.js';
import { SvcError, UsageError } from '../errors.js';
import { atExit } from '../util/exit-hooks.js';
import { shown } from '../util/shown.js';
import type { CredentialStore } from './store.js';

/**
 * Runs a read-modify-write of the file under a lock shared by every svc process (proper-lockfile, the
 * library the token renewal locks with): two profiles renewing their tokens at the same moment must not
 * each write back the file as they read it, losing the other's new pair.
 */
async function locked<T>(file: string, work: () => T, onWait: ((line: string) => void) | undefined): Promise<T> {
  const { oauthLibs } = await import('./oauth/libs.js');
  const { lockfile } = await oauthLibs();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const lockDir = `${file}.lock`;
  const options = { realpath: false, stale: LOCK_STALE_MS };
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(file, { ...options, retries: 0 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
    // Never a silent wait: another svc writes the file, or one that was killed left its lock.
    onWait?.(`waiting for ${shortPath(lockDir)}: another svc is writing ${shortPath(file)} (a lock left by a killed svc is taken over after ${LOCK_STALE_MS / 1000} s)`);
    try {
      release = await lockfile.lock(file, { ...options, retries: { retries: 60, factor: 1.2, minTimeout: 10, maxTimeout: 500 } });
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code !== 'ELOCKED') throw again;
      throw new SvcError(`cannot write ${shortPath(file)}: ${shortPath(lockDir)} stayed locked; remove ${shortPath(lockDir)} if no other svc is running`);
    }
  }
  // However the process ends meanwhile (SIGTERM's exit, a closed stdout), the lock goes with it: the next svc never waits it out.
  const forget = atExit(() => rmSync(lockDir, { recursive: true, force: true }));
  try {
    sweepDrafts(file);
    return work();
  } finally {
    await release().catch(() => undefined);
    forget();
  }
}

/** A lock untouched this long is a killed svc's, taken over (proper-lockfile renews a held one's time). */
const LOCK_STALE_MS = 10_000;

/**
 * Removes the drafts (`credentials.insecure.json.<random>.tmp`) a killed svc left beside the file: each holds
 * secrets. Called under the lock, where no other svc writes one.
 */
function sweepDrafts(file: string): void {
  const prefix = `${basename(file)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(prefix) && /^[0-9a-f]+\.tmp$/.test(name.slice(prefix.length))) rmSync(join(dirname(file), name), { force: true });
  }
}

export const PLAIN_FILE_NAME = 'credentials.insecure.json';

/**
 * The file's secrets. A file that is not the JSON object of texts svc writes
 * (a bad hand edit) is refused in one line that quotes none of it: a JSON
 * parser's message shows the text around the fault, which is a secret.
 */
function read(file: string): { data: Record<string, string>; mode: number } {
  const fix = "remove it and sign in again with 'svc login --insecure-storage'";
  const got = readOwnFile(file, (why) =>
    new UsageError(`cannot read ${shortPath(file)} (${why}); ${why.includes('not a file') ? fix : `fix its permissions, or ${fix}`}`),
  );
  if (got === undefined) return { data: {}, mode: 0o600 };
  let data: unknown;
  try {
    data = JSON.parse(withoutBom(new TextDecoder('utf-8', { fatal: true }).decode(got.bytes)));
  } catch {
    data = undefined;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new UsageError(`${shortPath(file)} is damaged (not the JSON object svc writes); ${fix}`);
  }
  // An entry that is not text (a hand edit) is passed on as it is: its reader (a stored sign-in's) refuses it in its own words.
  return { data: data as Record<string, string>, mode: got.stats.mode & 0o777 };
}

function write(file: string, data: Record<string, string>): void {
  if (Object.keys(data).length === 0) {
    rmSync(file, { force: true });
    return;
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/** The file as a person would type it: the home directory as `~`. */
function shortPath(file: string): string {
  let home = '';
  try {
    home = homedir();
  } catch {
    // no home directory: the whole path
  }
  return home && home !== sep && file.startsWith(home + sep) ? `~${file.slice(home.length)}` : file;
}

/** What a store tells besides its warning. */
export interface PlainFileOptions {
  /** Told when the store waits for another svc's lock on the file (default: `warn`). */
  readonly onLockWait?: (message: string) => void;
}

/**
 * A store in `<dir>/credentials.insecure.json`; `warn` is called once, at the first read of a secret or
 * write, and once more when others can read the file.
 */
export function createPlainFileStore(dir: string, warn: (message: string) => void, opts: PlainFileOptions = {}): CredentialStore {
  const file = join(dir, PLAIN_FILE_NAME);
  const onWait = opts.onLockWait ?? warn;
  let warned = false;
  let modeWarned = false;
  const notice = (): void => {
    if (warned) return;
    warned = true;
    warn(`warning: using secrets stored in plain text in ${shortPath(file)} (chosen with --insecure-storage)`);
  };
  /** As a token file that others can read is warned about (src/auth/chain.ts). */
  const modeNotice = (mode: number): void => {
    if (modeWarned || platform() === 'win32' || (mode & 0o077) === 0) return;
    modeWarned = true;
    warn(`warning: ${shown(shortPath(file))} can be read by others (mode ${mode.toString(8)}); run chmod 600 ${shown(file)}`);
  };
  return {
    kind: 'plain file',
    async get(account) {
      const { data, mode } = read(file);
      const value = Object.hasOwn(data, account) ? data[account] : undefined;
      if (value !== undefined) {
        notice();
        modeNotice(mode);
      }
      return value;
    },
    async set(account, secret) {
      notice();
      await locked(file, () => write(file, { ...read(file).data, [account]: secret }), onWait);
    },
    async delete(account) {
      return locked(
        file,
        () => {
          const { data } = read(file);
          if (!Object.hasOwn(data, account)) return false;
          delete data[account];
          write(file, data);
          return true;
        },
        onWait,
      );
    },
  };
}
