/**
 * The opt-in plain-file store (`svc login --insecure-storage`): one JSON file
 * of secrets, mode 0600, beside the config. Each use warns on stderr; svc
 * never falls back to it silently.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CredentialStore } from './store.js';

export const PLAIN_FILE_NAME = 'credentials.insecure.json';

function read(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
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

/** A store in `<dir>/credentials.insecure.json`; `warn` is called on every read or write. */
export function createPlainFileStore(dir: string, warn: (message: string) => void): CredentialStore {
  const file = join(dir, PLAIN_FILE_NAME);
  const notice = (): void => warn(`warning: using secrets stored in plain text in ${file} (chosen with --insecure-storage)`);
  return {
    kind: 'plain file',
    async get(account) {
      const value = read(file)[account];
      if (value !== undefined) notice();
      return value;
    },
    async set(account, secret) {
      notice();
      write(file, { ...read(file), [account]: secret });
    },
    async delete(account) {
      const data = read(file);
      if (!(account in data)) return false;
      delete data[account];
      write(file, data);
      return true;
    },
  };
}
