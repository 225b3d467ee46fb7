/**
 * s8-r2-out: the built svc writing into a pipe nobody reads, then told to stop.
 *
 * README ("Exit codes"): 130 "stopped by Ctrl-C (SIGINT) or SIGTERM"; ("Output"):
 * "Streamed output (`query --all`, `export` without a file) goes at the pace of
 * whoever reads the pipe: svc waits for a full pipe to drain". A supervisor's
 * SIGTERM (`timeout 60 svc … | slow-consumer`, systemd, Kubernetes) goes to svc
 * alone, while the reader stalls. src/cli/stdout.ts writes to a pipe with
 * fs.writeSync: on a full (blocking) pipe the main thread sits in write(2), the
 * signal handler never runs, and svc ignores SIGTERM until the reader reads again.
 *
 * The test waits for svc to be blocked in write(2) on fd 1 (/proc/PID/syscall),
 * then signals it, and still reads nothing until svc has exited.
 *
 * Tests named "HELD: …" are claims that held; the others fail today.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { prepareInsert } from '../../src/sandbox/data/store.js';
import { sandboxCli } from '../helpers/cli.js';
import { useSpawnedSvc } from './s7-support.js';

const { sandbox } = sandboxCli();
const spawned = useSpawnedSvc({ url: () => sandbox().instanceUrl, token: () => sandbox().token(), configPrefix: 's8-r2-out-' });

beforeAll(() => {
  const insert = prepareInsert(sandbox().sandbox.db, 'demo', 'accounts', ['lastname', 'currency', 'description', 'creationdate', 'lastmodified']);
  sandbox().sandbox.db.transaction(() => {
    // About 3 MB of NDJSON: far more than a pipe or socket buffer holds.
    for (let i = 0; i < 4000; i++) insert([`S8R2 sig ${i}`, 'EUR', 'd'.repeat(600), 0, 0]);
  })();
});

/** write(2) and writev(2) on x86_64 and on arm64. */
const WRITES = process.arch === 'arm64' ? new Set(['64', '66']) : new Set(['1', '20']);

/** Bytes the process has written so far, to any descriptor (/proc/PID/io). */
function written(pid: number): number {
  const m = /^wchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
  return m ? Number(m[1]) : 0;
}

/**
 * Resolves once svc is stuck on the pipe nobody reads: its main thread sits in write(2) on fd 1 (a blocking
 * write, as svc did before it handed large output to the non-blocking stream), or it has written more than a
 * pipe holds and then wrote nothing more over several looks (waiting for 'drain'). Polls /proc.
 */
function blockedOnStdout(pid: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let inWrite = 0;
    let still = 0;
    let last = -1;
    const t = setInterval(() => {
      try {
        const [nr, fd] = readFileSync(`/proc/${pid}/syscall`, 'utf8').trim().split(' ');
        // Seen twice in a row: not a write that was about to return.
        inWrite = nr !== undefined && WRITES.has(nr) && fd === '0x1' ? inWrite + 1 : 0;
        const now = written(pid);
        still = now === last && now > 65_536 ? still + 1 : 0;
        last = now;
        if (inWrite >= 2 || still >= 8) (clearInterval(t), resolve());
      } catch (err) {
        clearInterval(t);
        reject(err as Error);
      }
    }, 25);
  });
}

const canSee = ((): boolean => {
  try {
    readFileSync(`/proc/${process.pid}/syscall`, 'utf8');
    readFileSync(`/proc/${process.pid}/io`, 'utf8');
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!canSee)('a signal while svc waits on a full pipe (skipped without /proc/PID/syscall and io)', () => {
  const cases: [string, string[], NodeJS.Signals][] = [
    ['query --all -o ndjson', ['accounts', 'query', '--all', '--page-size', '500', '--filter', 'lastname ~~ "S8R2 sig %"', '-o', 'ndjson'], 'SIGTERM'],
    ['count --jq with 8 MB of output', ['accounts', 'count', '--jq', '"x" * 8000000'], 'SIGTERM'],
  ];
  for (const [name, argv, signal] of cases) {
    it(`${name}: ${signal} while nobody reads ends svc at once with exit 130 (today it waits for the reader, for ever)`, async () => {
      let release: () => void = () => undefined;
      const hold = new Promise<void>((r) => (release = r));
      const s = spawned.start(argv, { holdStdoutUntil: hold, killMs: 12_000 });
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
        s.child.once('exit', (code, sig) => {
          resolve({ code, signal: sig, at: Date.now() });
          release();
        }),
      );
      await blockedOnStdout(s.child.pid ?? 0);
      const sent = Date.now();
      s.child.kill(signal);
      const e = await exited;
      const ended = await s.ended;
      // SIGKILL from the harness (12 s) means svc never answered the signal.
      expect({ code: e.code, signal: e.signal }).toEqual({ code: 130, signal: null });
      expect(e.at - sent).toBeLessThan(3000);
      expect(ended.stderr).toBe(`svc: interrupted by ${signal}\n`);
    }, 20_000);
  }

  it('HELD: SIGINT (Ctrl-C) while nobody reads a -o csv stream ends svc at once (death by SIGINT: 130 in a shell)', async () => {
    let release: () => void = () => undefined;
    const hold = new Promise<void>((r) => (release = r));
    const s = spawned.start(['accounts', 'query', '--all', '--page-size', '500', '--filter', 'lastname ~~ "S8R2 sig %"', '-o', 'csv'], { holdStdoutUntil: hold, killMs: 12_000 });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
      s.child.once('exit', (code, sig) => {
        resolve({ code, signal: sig, at: Date.now() });
        release();
      }),
    );
    await blockedOnStdout(s.child.pid ?? 0);
    const sent = Date.now();
    s.child.kill('SIGINT');
    const e = await exited;
    await s.ended;
    expect(e.code === 130 || e.signal === 'SIGINT', JSON.stringify(e)).toBe(true);
    expect(e.at - sent).toBeLessThan(3000);
  }, 20_000);

  it('HELD: with a reader, the same runs end exit 0 with every record', async () => {
    const e = await spawned.run(['accounts', 'query', '--all', '--page-size', '500', '--filter', 'lastname ~~ "S8R2 sig %"', '-o', 'ndjson']);
    expect({ code: e.code, stderr: e.stderr }).toEqual({ code: 0, stderr: '' });
    expect(e.stdout.split('\n').filter(Boolean)).toHaveLength(4000);
  });

  it('HELD: a reader that closes the pipe after the first line ends every format quietly, exit 0', async () => {
    for (const f of ['table', 'csv', 'tsv', 'json', 'ndjson']) {
      const s = spawned.start(['accounts', 'query', '--all', '--page-size', '500', '--filter', 'lastname ~~ "S8R2 sig %"', '-o', f]);
      s.child.stdout?.once('data', () => s.child.stdout?.destroy());
      const e = await s.ended;
      expect({ code: e.code, signal: e.signal, stderr: e.stderr }, f).toEqual({ code: 0, signal: null, stderr: '' });
    }
  }, 30_000);
});
