/**
 * The sandbox server and its data dir: a seeding cut short leaves no instance
 * behind (the next start seeds it again), damaged files are errors naming the
 * file (code ESVCSANDBOXDAMAGED), and the health route answers with the token
 * it was given, so svc can tell this sandbox from whatever else has its pid or port.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/sandbox/db.js';
import { listInstances } from '../../src/sandbox/schema.js';
import { DAMAGED_FILE, startSandbox } from '../../src/sandbox/server.js';

function dataDir(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'svc-sandbox-data-dir-')), 'data');
  mkdirSync(dir);
  return dir;
}

describe('the sandbox data dir', () => {
  it('a seeding that fails before it commits leaves no instance, and the next start seeds it', async () => {
    const dir = dataDir();
    // The credentials cannot be written (a folder stands where their draft goes): the seeding fails at its end.
    const draft = join(dir, 'credentials.json.svc-tmp');
    mkdirSync(draft);
    writeFileSync(join(draft, 'x'), '');
    await expect(startSandbox({ dataDir: dir, port: 0, seedAccounts: 3 })).rejects.toThrow(/directory|EISDIR/i);
    const db = openDatabase(join(dir, 'sandbox.sqlite'));
    try {
      expect(listInstances(db)).toEqual([]);
    } finally {
      db.close();
    }
    expect(existsSync(join(dir, 'credentials.json'))).toBe(false);
    rmSync(draft, { recursive: true, force: true });
    const sandbox = await startSandbox({ dataDir: dir, port: 0, seedAccounts: 3 });
    try {
      expect(Object.keys(sandbox.credentials)).toEqual(['demo']);
      expect(listInstances(sandbox.db)).toEqual(['demo']);
    } finally {
      await sandbox.close();
    }
  });

  it.each([
    ['sandbox.sqlite', 'garbage\n'.repeat(200), /is damaged \(file is not a database\)$/],
    ['credentials.json', '{"demo": {"us', /is damaged \(not JSON\)$/],
    ['credentials.json', '[]', /is damaged \(not a JSON object\)$/],
  ])('a damaged %s is an error naming it', async (name, text, message) => {
    const dir = dataDir();
    writeFileSync(join(dir, name), text);
    const err = (await startSandbox({ dataDir: dir, port: 0 }).catch((e: unknown) => e)) as NodeJS.ErrnoException;
    expect(err.code).toBe(DAMAGED_FILE);
    expect(err.path).toBe(join(dir, name));
    expect(err.message).toMatch(message);
    expect(err.message.startsWith(join(dir, name))).toBe(true);
  });

  it('the health route answers with its token (and without one when given none)', async () => {
    const withToken = await startSandbox({ dataDir: ':memory:', port: 0, seedAccounts: 1, token: 'abc123' });
    const without = await startSandbox({ dataDir: ':memory:', port: 0, seedAccounts: 1 });
    try {
      expect(await (await fetch(`${withToken.origin}/_sandbox/health`)).json()).toEqual({ ok: true, instances: ['demo'], token: 'abc123' });
      expect(await (await fetch(`${without.origin}/_sandbox/health`)).json()).toEqual({ ok: true, instances: ['demo'] });
    } finally {
      await withToken.close();
      await without.close();
    }
  });
});
