/**
 * The plain-file store shared by processes writing at once (profiles renewing
 * their tokens in cron jobs started together): every write survives, since a
 * read-modify-write of the file happens under a lock all svc processes share.
 * Eight processes of their own (tsx), each writing its own entries many times.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { PLAIN_FILE_NAME } from '../../src/auth/plain-file.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const WRITERS = 8;
const WRITES = 15;

it(`keeps every entry when ${WRITERS} processes write the plain file at once`, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-plain-lock-'));
  const script = `
    import { createPlainFileStore } from ${JSON.stringify(join(root, 'src', 'auth', 'plain-file.ts'))};
    const store = createPlainFileStore(process.argv[2], () => undefined);
    for (let i = 0; i < ${WRITES}; i++) await store.set('profile:w' + process.argv[3] + '/token', 'value-' + i);
  `;
  const tsx = join(root, 'node_modules', '.bin', 'tsx');
  const file = join(dir, 'writer.mts');
  writeFileSync(file, script);
  const runs = await Promise.all(
    Array.from({ length: WRITERS }, (_, w) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(tsx, [file, dir, String(w)], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        child.on('close', (code) => resolve({ code, stderr }));
      }),
    ),
  );
  for (const r of runs) expect(r).toEqual({ code: 0, stderr: '' });
  const data = JSON.parse(readFileSync(join(dir, PLAIN_FILE_NAME), 'utf8')) as Record<string, string>;
  expect(data).toEqual(Object.fromEntries(Array.from({ length: WRITERS }, (_, w) => [`profile:w${w}/token`, `value-${WRITES - 1}`])));
}, 60_000);
