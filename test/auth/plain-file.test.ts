/** The plain-file store against hostile state in its directory (s10): not a file, readable by others, drafts a kill left, a held lock. */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLAIN_FILE_NAME, createPlainFileStore } from '../../src/auth/plain-file.js';

const dir = (): string => mkdtempSync(join(tmpdir(), 'svc-plain-'));

describe('the plain-file store', () => {
  it('a FIFO in place of the file is refused at once, naming the file, never read', async () => {
    const d = dir();
    spawnSync('mkfifo', [join(d, PLAIN_FILE_NAME)]);
    const store = createPlainFileStore(d, () => undefined);
    await expect(store.get('profile:a/token')).rejects.toThrow(/credentials\.insecure\.json \(it is a named pipe \(FIFO\), not a file\); remove it and sign in again/);
    await expect(store.delete('profile:a/token')).rejects.toThrow(/not a file/);
  });

  it('a file others can read is warned about once, as a token file is, with the chmod that fixes it', async () => {
    const d = dir();
    writeFileSync(join(d, PLAIN_FILE_NAME), JSON.stringify({ 'profile:a/token': 'tok' }));
    chmodSync(join(d, PLAIN_FILE_NAME), 0o644);
    const warnings: string[] = [];
    const store = createPlainFileStore(d, (m) => warnings.push(m));
    expect(await store.get('profile:a/token')).toBe('tok');
    expect(await store.get('profile:a/token')).toBe('tok');
    expect(warnings.filter((w) => w.includes('can be read by others'))).toEqual([`warning: ${join(d, PLAIN_FILE_NAME)} can be read by others (mode 644); run chmod 600 ${join(d, PLAIN_FILE_NAME)}`]);
  });

  it('a private file is used without that warning', async () => {
    const d = dir();
    writeFileSync(join(d, PLAIN_FILE_NAME), JSON.stringify({ 'profile:a/token': 'tok' }), { mode: 0o600 });
    const warnings: string[] = [];
    expect(await createPlainFileStore(d, (m) => warnings.push(m)).get('profile:a/token')).toBe('tok');
    expect(warnings.join('\n')).not.toMatch(/read by others/);
  });

  it('drafts a killed svc left beside the file (secrets in each) are removed by the next write or delete, other files are not', async () => {
    const d = dir();
    writeFileSync(join(d, PLAIN_FILE_NAME), JSON.stringify({ 'profile:a/token': 'tok' }), { mode: 0o600 });
    writeFileSync(join(d, `${PLAIN_FILE_NAME}.0a1b2c3d4e5f.tmp`), '{"profile:a/token":"tok"}');
    writeFileSync(join(d, 'notes.tmp'), 'mine');
    const store = createPlainFileStore(d, () => undefined);
    expect(await store.delete('profile:b/token')).toBe(false);
    expect(readdirSync(d).sort()).toEqual([PLAIN_FILE_NAME, 'notes.tmp']);
  });

  it('says when it waits on another svc\'s lock, and takes over one a killed svc left', async () => {
    const d = dir();
    // A lock made 11 s ago by a svc that is gone (proper-lockfile's directory; its time is what makes it stale).
    const lock = join(d, `${PLAIN_FILE_NAME}.lock`);
    mkdirSync(lock);
    const old = new Date(Date.now() - 11_000);
    utimesSync(lock, old, old);
    const notes: string[] = [];
    let said: () => void = () => undefined;
    const saidWait = new Promise<void>((resolve) => (said = resolve));
    const store = createPlainFileStore(d, () => undefined, {
      onLockWait: (m) => {
        notes.push(m);
        said();
      },
    });
    await store.set('profile:a/token', 'tok');
    expect(notes).toEqual([]);
    expect(existsSync(lock)).toBe(false);
    // A fresh lock: waited for, and said; the write goes through once it is gone.
    mkdirSync(lock);
    const waiting = store.set('profile:b/token', 'tok2');
    await saidWait;
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^waiting for .*credentials\.insecure\.json\.lock: another svc is writing .*taken over after 10 s\)$/);
    rmdirSync(lock);
    await waiting;
    expect(await store.get('profile:b/token')).toBe('tok2');
  });
});
