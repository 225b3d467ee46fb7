/**
 * The opener of files named on the command line (src/util/read-bounded.ts):
 * opened without waiting (a FIFO with no writer opens at once) and judged by
 * the descriptor, so a FIFO, a terminal and a file are each read their way.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openInput, readBounded, ReadBoundError } from '../../src/util/read-bounded.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-read-bounded-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('openInput', () => {
  it('a regular file is a file; a device other than a terminal too', async () => {
    const path = join(dir, 'a.json');
    writeFileSync(path, '{}');
    const f = await openInput(path);
    closeSync(f.fd);
    expect([f.kind, f.namedFifo]).toEqual(['file', false]);
    const d = await openInput('/dev/null');
    closeSync(d.fd);
    expect(d.kind).toBe('file');
  });

  it.skipIf(process.platform === 'win32')('a named FIFO nobody writes to opens at once (never waits in open), a pipe it reads as written', async () => {
    const path = join(dir, 'fifo');
    execFileSync('mkfifo', [path]);
    const f = await openInput(path);
    expect([f.kind, f.namedFifo]).toEqual(['pipe', true]);
    closeSync(f.fd);
    let waited = 0;
    let told = (): void => undefined;
    const waiting = new Promise<void>((r) => (told = r));
    const reading = readBounded(path, { maxBytes: 100, onWait: () => (waited++, told()) });
    // The read waits in the event loop, having said so: a writer that comes now is read whole.
    await waiting;
    const w = openSync(path, 'w');
    writeSync(w, '{"a": 1}');
    closeSync(w);
    expect((await reading).toString()).toBe('{"a": 1}');
    expect(waited).toBe(1);
  });

  it('past maxBytes, a ReadBoundError', async () => {
    await expect(readBounded('/dev/zero', { maxBytes: 10 })).rejects.toBeInstanceOf(ReadBoundError);
  });

  it('a missing file is Node\'s ENOENT', async () => {
    await expect(openInput(join(dir, 'none'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
