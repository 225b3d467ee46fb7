import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveToken } from '../../src/auth/chain.js';
import { createKeychainStore } from '../../src/auth/keychain.js';
import { PLAIN_FILE_NAME, createPlainFileStore } from '../../src/auth/plain-file.js';
import { accountName, KeychainUnavailableError, type CredentialStore } from '../../src/auth/store.js';
import { keychainAvailable } from '../helpers/keychain.js';

const available = await keychainAvailable();

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'svc-chain-'));
}

function tokenFile(content: string, mode = 0o600): string {
  const file = join(tmp(), 'token');
  writeFileSync(file, content, { mode });
  chmodSync(file, mode);
  return file;
}

/** The keychain as it behaves on a machine without one: every call fails this way. */
const noKeychain: CredentialStore = {
  kind: 'keychain',
  get: () => Promise.reject(new KeychainUnavailableError('no Secret Service on the session bus')),
  set: () => Promise.reject(new KeychainUnavailableError('no Secret Service on the session bus')),
  delete: () => Promise.reject(new KeychainUnavailableError('no Secret Service on the session bus')),
};

describe('a token file that is a pipe', () => {
  const base = { key: 'p', keychain: noKeychain, warn: () => undefined };
  const fifo = (): string => {
    const file = join(tmp(), 'token');
    execFileSync('mkfifo', ['-m', '600', file]);
    return file;
  };

  it('is read as its writer writes it, the writer coming after svc opened it', async () => {
    const file = fifo();
    const reading = resolveToken({ ...base, env: { SVC_TOKEN_FILE: file }, waitMs: 10_000 });
    // svc's open does not wait for a writer, so this open for writing finds the reader there.
    const writer = await open(file, 'w');
    await writer.write('tok-from-pipe\n');
    await writer.close();
    expect((await reading).token).toEqual({ token: 'tok-from-pipe', source: 'token file', where: file });
  });

  it('nobody writing to it: refused after waitMs, naming it, never held', async () => {
    const file = fifo();
    await expect(resolveToken({ ...base, env: { SVC_TOKEN_FILE: file }, waitMs: 200 })).rejects.toThrow(`token file '${file}' gave no token within 200 ms (a pipe nobody writes to?)`);
  });

  it('one token only: a second line, a space, or a whole file are refused naming where they came from', async () => {
    await expect(resolveToken({ ...base, env: { SVC_TOKEN: 'abc\ndef' } })).rejects.toThrow('SVC_TOKEN holds more than one line, so it is not one token; it must hold the token alone');
    await expect(resolveToken({ ...base, env: { SVC_TOKEN: 'abc def' } })).rejects.toThrow(/^SVC_TOKEN holds a space or a character/);
    const two = tokenFile('abc\n# rotated\n');
    await expect(resolveToken({ ...base, env: { SVC_TOKEN_FILE: two } })).rejects.toThrow(`token file '${two}' holds more than one line`);
    const big = tokenFile('a'.repeat(70_000));
    await expect(resolveToken({ ...base, env: {}, tokenFile: big })).rejects.toThrow(`token file '${big}' is 70,000 bytes, too large to be a token; check the path`);
  });
});

describe('the credential chain', () => {
  it('takes the flag, then SVC_TOKEN, then SVC_TOKEN_FILE, in that order', async () => {
    const warnings: string[] = [];
    const base = { key: 'p', keychain: noKeychain, warn: (m: string) => warnings.push(m) };
    const flag = tokenFile('from-flag\n');
    const envFile = tokenFile('from-env-file');
    const all = { SVC_TOKEN: 'from-env', SVC_TOKEN_FILE: envFile };
    expect((await resolveToken({ ...base, env: all, tokenFile: flag })).token).toEqual({ token: 'from-flag', source: 'flag', where: flag });
    expect((await resolveToken({ ...base, env: all })).token).toEqual({ token: 'from-env', source: 'env' });
    expect((await resolveToken({ ...base, env: { SVC_TOKEN_FILE: envFile } })).token).toEqual({ token: 'from-env-file', source: 'token file', where: envFile });
    expect(warnings).toEqual([]);
  });

  it('warns when a token file can be read by others, and refuses an empty or missing one', async () => {
    const warnings: string[] = [];
    const open = tokenFile('tok', 0o644);
    await resolveToken({ key: 'p', keychain: noKeychain, env: { SVC_TOKEN_FILE: open }, warn: (m) => warnings.push(m) });
    expect(warnings).toEqual([`warning: token file ${open} can be read by others (mode 644); run chmod 600 ${open}`]);
    await expect(resolveToken({ key: 'p', keychain: noKeychain, env: { SVC_TOKEN_FILE: tokenFile('  \n') }, warn: () => undefined })).rejects.toThrow(/is empty/);
    await expect(resolveToken({ key: 'p', keychain: noKeychain, env: { SVC_TOKEN_FILE: '/nonexistent/t' }, warn: () => undefined })).rejects.toThrow(
      "cannot read token file '/nonexistent/t' (ENOENT); check the path",
    );
  });

  it('uses the plain file only when opted in, warning once, and says why the keychain was not asked', async () => {
    const dir = tmp();
    const warnings: string[] = [];
    const plain = createPlainFileStore(dir, (m) => warnings.push(m));
    await plain.set(accountName('p', 'token'), 'from-plain');
    expect(statSync(join(dir, PLAIN_FILE_NAME)).mode & 0o777).toBe(0o600);
    const withPlain = await resolveToken({ key: 'p', keychain: noKeychain, plain, env: {}, warn: () => undefined });
    expect(withPlain.token).toEqual({ token: 'from-plain', source: 'plain file' });
    const without = await resolveToken({ key: 'p', keychain: noKeychain, env: {}, warn: () => undefined });
    expect(without).toEqual({ keychainProblem: 'no Secret Service on the session bus' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^warning: using secrets stored in plain text in .*credentials\.insecure\.json \(chosen with --insecure-storage\)$/);
  });

  it('opens the keychain and the plain file only when the chain gets to them', async () => {
    const opened: string[] = [];
    const store = (kind: 'keychain' | 'plain file', token?: string): (() => Promise<CredentialStore>) => async () => {
      opened.push(kind);
      return { kind, get: async () => token, set: async () => undefined, delete: async () => false };
    };
    const base = { key: 'p', warn: () => undefined };
    const lazy = { keychain: store('keychain', 'from-keychain'), plain: store('plain file', 'from-plain') };
    expect((await resolveToken({ ...base, ...lazy, env: { SVC_TOKEN: 'from-env' } })).token?.source).toBe('env');
    expect((await resolveToken({ ...base, ...lazy, env: { SVC_TOKEN_FILE: tokenFile('t') } })).token?.source).toBe('token file');
    expect((await resolveToken({ ...base, ...lazy, env: {}, tokenFile: tokenFile('t') })).token?.source).toBe('flag');
    expect(opened).toEqual([]);
    expect((await resolveToken({ ...base, ...lazy, env: {} })).token).toEqual({ token: 'from-keychain', source: 'keychain' });
    expect(opened).toEqual(['keychain']);
    opened.length = 0;
    const empty = { keychain: store('keychain'), plain: store('plain file', 'from-plain') };
    expect((await resolveToken({ ...base, ...empty, env: {} })).token).toEqual({ token: 'from-plain', source: 'plain file' });
    expect(opened).toEqual(['keychain', 'plain file']);
    // Unavailable keychain, opened lazily: the reason is kept, as with a store given directly.
    const unavailable = await resolveToken({ ...base, keychain: async () => noKeychain, plain: async () => undefined, env: {} });
    expect(unavailable).toEqual({ keychainProblem: 'no Secret Service on the session bus' });
  });

  it.skipIf(!available)('reads the keychain before a plain file (needs a Secret Service)', async () => {
    const keychain = createKeychainStore({ service: `svc-chain-${process.pid}` });
    const plain = createPlainFileStore(tmp(), () => undefined);
    await keychain.set(accountName('p', 'token'), 'from-keychain');
    await plain.set(accountName('p', 'token'), 'from-plain');
    try {
      expect((await resolveToken({ key: 'p', keychain, plain, env: {}, warn: () => undefined })).token).toEqual({ token: 'from-keychain', source: 'keychain' });
    } finally {
      await keychain.delete(accountName('p', 'token'));
    }
  });
});
