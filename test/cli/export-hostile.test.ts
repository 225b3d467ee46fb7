/**
 * What an attacker's review of exports found, kept found: checkpoints and
 * partial files that were edited or damaged, lock files that are not what
 * svc writes, names that are another export's working files, permissions
 * that must survive, fractional timeouts, and the object form of `fields` on
 * every request an export sends.
 */
import { chmodSync, existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { onRequest, sha256File, tempDir, useReferenceExport } from '../export/support.js';

const { sandbox, run, reference: referenceFile } = useReferenceExport(400);

/** An export stopped after its first pages, by a server error that outlasts the retries: a partial file and a checkpoint stay. */
async function stoppedExport(file: string): Promise<void> {
  const s = sandbox();
  const stop = onRequest(s, '/api/v1/accounts', (n) => {
    if (n === 1) s.sandbox.hooks.failNext({ path: '/api/v1/accounts', fault: { status: 400, body: 'stop here' } });
  });
  const r = await run(['accounts', 'export', '--format', 'csv', '--page-size', '100', '--output-file', file]);
  stop();
  expect(r.code, r.stderr).toBe(1);
  expect(existsSync(`${file}.svc-checkpoint.json`)).toBe(true);
}

describe('a checkpoint or partial file that cannot be trusted', () => {
  it('refuses a hand-edited checkpoint (exit 2) instead of duplicating or skipping rows', async () => {
    const file = join(tempDir(), 'nightly.csv');
    await stoppedExport(file);
    const ckPath = `${file}.svc-checkpoint.json`;
    const ck = JSON.parse(readFileSync(ckPath, 'utf8')) as { range: { last: number }; bytes: number };
    for (const edit of [{ range: { ...ck.range, last: 5 } }, { bytes: -5 }, { bytes: 'abc' }, { bytes: 1.5 }]) {
      writeFileSync(ckPath, JSON.stringify({ ...ck, ...edit }));
      const r = await run(['accounts', 'export', '--format', 'csv', '--page-size', '100', '--output-file', file, '--resume']);
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr).toBe(`svc: the checkpoint ${ckPath} is damaged or was edited; remove it (and ${file}.svc-partial) to start the export again\n`);
    }
  });

  it('refuses a partial file whose checkpointed prefix changed (exit 2)', async () => {
    const file = join(tempDir(), 'nightly.csv');
    await stoppedExport(file);
    const partial = `${file}.svc-partial`;
    const bytes = readFileSync(partial);
    bytes[10] = bytes[10] === 0x41 ? 0x42 : 0x41;
    writeFileSync(partial, bytes);
    const r = await run(['accounts', 'export', '--format', 'csv', '--page-size', '100', '--output-file', file, '--resume']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`svc: the partial file ${partial} no longer holds what its checkpoint says (changed or damaged); run without --resume to start again\n`);
    const fresh = await run(['accounts', 'export', '--format', 'csv', '--page-size', '100', '--output-file', file]);
    expect(fresh.code).toBe(0);
    expect(sha256File(file)).toBe(sha256File(referenceFile()));
  });
});

describe('names and permissions', () => {
  it("refuses another export's working files and a name ending in a slash (exit 2, nothing sent)", async () => {
    const dir = tempDir();
    for (const name of ['a.csv.svc-partial', 'a.csv.svc-checkpoint.json', 'a.csv.svc-lock']) {
      const r = await run(['accounts', 'export', '--format', 'csv', '--output-file', join(dir, name)]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('is a working file of another export');
    }
    const slash = await run(['accounts', 'export', '--format', 'csv', '--output-file', `${join(dir, 'x.csv')}/`]);
    expect(slash).toMatchObject({ code: 2, stderr: `svc: --output ${join(dir, 'x.csv')}/ ends in a slash, which names a directory; name a file\n` });
    symlinkSync('loop2', join(dir, 'loop1'));
    symlinkSync('loop1', join(dir, 'loop2'));
    const loop = await run(['accounts', 'export', '--format', 'csv', '--output-file', join(dir, 'loop1', 'x.csv')]);
    expect(loop.code).toBe(2);
    expect(loop.stderr).toMatch(/^svc: --output .*: too many (levels of )?symbolic links.*; (choose another file|point it at a file)\n$/);
    expect(sandbox().sandbox.hooks.requests.filter((q) => q.url.includes('/api/v1/accounts'))).toEqual([]);
  });

  it('keeps a private file private, and its checkpoint and lock readable by the owner only', async () => {
    const file = join(tempDir(), 'secret.csv');
    writeFileSync(file, 'old\n');
    chmodSync(file, 0o600);
    const r = await run(['accounts', 'export', '--format', 'csv', '--output-file', file]);
    expect(r.code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stopped = join(tempDir(), 'stopped.csv');
    await stoppedExport(stopped);
    expect(statSync(`${stopped}.svc-checkpoint.json`).mode & 0o777).toBe(0o600);
  });
});

describe('lock files svc did not write', () => {
  const cases: [string, (lock: string) => void][] = [
    ['a FIFO (never opened, so never waited on)', (lock) => expect(spawnSync('mkfifo', [lock]).status).toBe(0)],
    ['a dangling symbolic link', (lock) => symlinkSync('nowhere', lock)],
    ['pid 0', (lock) => writeFileSync(lock, JSON.stringify({ pid: 0, host: 'x', since: 'y', what: 'z' }))],
    ['an empty file (a power loss)', (lock) => writeFileSync(lock, '')],
    ['a huge file (never read whole)', (lock) => writeFileSync(lock, Buffer.alloc(1024 * 1024, 0x20))],
  ];
  it.each(cases)('refuses at once when the lock is %s, and says to remove it if no export runs', async (_what, make) => {
    const file = join(tempDir(), 'nightly.csv');
    make(`${file}.svc-lock`);
    const r = await run(['accounts', 'export', '--format', 'csv', '--output-file', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `svc: another export to ${file} is running (another process; the lock file does not say which: remove it if no export is running; lock ${file}.svc-lock); wait for it to end, or stop it and run this command again with --resume\n`,
    );
  });

  it('shows what a lock file says on one line, whatever it holds', async () => {
    const file = join(tempDir(), 'nightly.csv');
    writeFileSync(`${file}.svc-lock`, JSON.stringify({ pid: 4242, host: 'batch\n7', since: '\u001b[31mred', what: 'svc\r\nexport' }));
    const r = await run(['accounts', 'export', '--format', 'csv', '--output-file', file]);
    expect(r.code).toBe(1);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain("(pid 4242 on batch?7 ('svc??export', since ?[31mred); lock");
  });
});

describe('requests an export sends', () => {
  it('sends fields in the object form on every request, bounds and samples included', async () => {
    const r = await run(['accounts', 'export', '--format', 'ndjson', '--fields', 'lastname', '--concurrency', '2', '--shard', '1/2', '--page-size', '50']);
    expect(r.code).toBe(0);
    const sent = sandbox().sandbox.hooks.requests.map((q) => (q.body as { fields?: unknown } | undefined)?.fields).filter((f) => f !== undefined);
    expect(sent.length).toBeGreaterThan(3);
    for (const fields of sent) expect(Array.isArray(fields), JSON.stringify(fields)).toBe(false);
  });

  it('takes a fractional --timeout as whole milliseconds', async () => {
    const r = await run(['accounts', 'count', '--timeout', '1.5ms']);
    expect(r.stderr).not.toContain('must be a positive integer');
    const ok = await run(['accounts', 'count', '--timeout', '2.5s', '-o', 'json']);
    expect(ok.code).toBe(0);
  });
});
