/**
 * The opt-in plain-file store (`svc login --insecure-storage`): one JSON file
 * of secrets, mode 0600, beside the config. A store warns on stderr, in one
 * line, the first time a secret is read from it or written to it (a command
 * opens one store, so that is once per command); svc never falls back to it
 * silently.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { UsageError } from '../errors.js';
import type { CredentialStore } from './store.js';

/**
 * Runs a read-modify-write of the file under a lock shared by every svc process (proper-lockfile, the
 * library the token renewal locks with): two profiles renewing their tokens at the same moment must not
 * each write back the file as they read it, losing the other's new pair.
 */
async function locked<T>(file: string, work: () => T): Promise<T> {
  const { oauthLibs } = await import('./oauth/libs.js');
  const { lockfile } = await oauthLibs();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const release = await lockfile.lock(file, { realpath: false, stale: 10_000, retries: { retries: 60, factor: 1.2, minTimeout: 10, maxTimeout: 500 } });
  try {
    return work();
  } finally {
    await release().catch(() => undefined);
  }
}

export const PLAIN_FILE_NAME = 'credentials.insecure.json';

/**
 * The file's secrets. A file that is not the JSON object of texts svc writes
 * (a bad hand edit) is refused in one line that quotes none of it: a JSON
 * parser's message shows the text around the fault, which is a secret.
 */
function read(file: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return {};
    throw new UsageError(`cannot read ${shortPath(file)} (${code ?? 'error'}); fix its permissions, or remove it and sign in again with 'svc login --insecure-storage'`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new UsageError(`${shortPath(file)} is damaged (not the JSON object svc writes); remove it and sign in again with 'svc login --insecure-storage'`);
  }
  // An entry that is not text (a hand edit) is passed on as it is: its reader (a stored sign-in's) refuses it in its own words.
  return data as Record<string, string>;
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

/** A store in `<dir>/credentials.insecure.json`; `warn` is called once, at the first read of a secret or write. */
export function createPlainFileStore(dir: string, warn: (message: string) => void): CredentialStore {
  const file = join(dir, PLAIN_FILE_NAME);
  let warned = false;
  const notice = (): void => {
    if (warned) return;
    warned = true;
    warn(`warning: using secrets stored in plain text in ${shortPath(file)} (chosen with --insecure-storage)`);
  };
  return {
    kind: 'plain file',
    async get(account) {
      const data = read(file);
      const value = Object.hasOwn(data, account) ? data[account] : undefined;
      if (value !== undefined) notice();
      return value;
    },
    async set(account, secret) {
      notice();
      await locked(file, () => write(file, { ...read(file), [account]: secret }));
    },
    async delete(account) {
      return locked(file, () => {
        const data = read(file);
        if (!Object.hasOwn(data, account)) return false;
        delete data[account];
        write(file, data);
        return true;
      });
    },
  };
}
