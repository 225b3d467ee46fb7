/**
 * s8-out: `--jq` (README, "Filtering JSON with --jq"): what reaches stderr when
 * jq fails on hostile record data, what becomes of `debug` when a run fails,
 * and the built svc stopped by SIGINT/SIGTERM while jq is busy or by a reader
 * that closes the pipe early (`| head -1`). The never-ending and huge programs
 * themselves are covered by test/cli/jq.test.ts and
 * test/attack/bulk-api-jq-api-jq.test.ts, and not repeated here.
 *
 * Tests named "HELD: …" are claims that held; the others fail today.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { prepareInsert } from '../../src/sandbox/data/store.js';
import { sandboxCli } from '../helpers/cli.js';
import { useSpawnedSvc } from './s7-support.js';

const { sandbox, run } = sandboxCli();
// eslint-disable-next-line no-control-regex
const ACTS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
let bidi = 0;
let ids: number[] = [];

beforeAll(async () => {
  const r = await sandbox().call('PUT', 'api/v1/accounts', { json: { lastname: 'S8 jq bidi', description: 'total \u202e0001 EUR\u202c due \u2066x\u2069 \u009b2J', currency: 'EUR' } });
  expect(r.status, r.text).toBeLessThan(300);
  bidi = r.json<{ ID: number }>().ID;
  const insert = prepareInsert(sandbox().sandbox.db, 'demo', 'accounts', ['lastname', 'currency', 'description', 'creationdate', 'lastmodified']);
  sandbox().sandbox.db.transaction(() => {
    for (let i = 0; i < 3000; i++) ids.push(insert([`S8 jq many ${i}`, 'EUR', 'd'.repeat(200), 0, 0]));
  })();
  ids = ids.sort((a, b) => a - b);
});

describe('jq errors on hostile record data', () => {
  it('a runtime error quoting a record value drops bidi overrides and C1 controls, as svc shows all outside text (shown())', async () => {
    // `tonumber` on a text field is a natural mistake; jq's message quotes the value.
    const r = await run(['accounts', 'get', String(bidi), '--jq', '.description | tonumber']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^svc: --jq: .*\n$/);
    expect(r.stderr, JSON.stringify(r.stderr)).not.toMatch(ACTS);
  });
});

describe('README: a runtime error is "exit 1 with jq\'s message, and nothing on stdout" (with -o ndjson, what came before the failing batch is written)', () => {
  it('-o ndjson --all: an error on a record of a later page is exit 1, one line; stdout holds only what jq printed for records before it, in order', async () => {
    // Changed by the fixer: the README now says that with -o ndjson (streamed) what jq printed for the records
    // before the failing batch is already written; svc does not hold stdout back.
    const bad = ids[1500];
    const r = await run(['accounts', 'query', '--all', '--page-size', '100', '--filter', 'lastname ~~ "S8 jq many %"', '--fields', 'ID', '-o', 'ndjson', '--jq', `if .ID == ${bad} then error("boom") else .ID end`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('svc: --jq: boom\n');
    const lines = r.stdout.split('\n').filter(Boolean);
    expect(lines).toEqual(ids.slice(0, lines.length).map(String));
    expect(lines.length).toBeLessThanOrEqual(1500);
  });
});

describe('debug output when the run fails', () => {
  it('what debug wrote before the error still reaches stderr (README: "What debug and stderr write goes to stderr"), as jq prints it', async () => {
    const r = await run(['accounts', 'count', '--filter', `ID = ${bidi}`, '--jq', '.count | debug | error("boom")']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('["DEBUG:",1]');
    expect(r.stderr).toMatch(/^svc: --jq: boom$/m);
  });

  it('-o ndjson: the error line is the error alone, not glued to the debug lines of the records after it', async () => {
    const [a, b, c] = ids;
    const r = await run(['accounts', 'query', '--filter', `ID >= ${a} and ID <= ${c}`, '--sort', '+ID', '-o', 'ndjson', '--jq', `.ID | debug | if . == ${b} then error("boom") else . end`]);
    expect(r.code).toBe(1);
    const errorLine = r.stderr.split('\n').find((l) => l.startsWith('svc: '));
    expect(errorLine).toBe('svc: --jq: boom');
  });
});

describe('the built svc while jq runs', () => {
  const spawned = useSpawnedSvc({ url: () => sandbox().instanceUrl, token: () => sandbox().token(), configPrefix: 's8-out-' });

  /** CPU ticks the process has used (utime + stime of /proc/PID/stat). */
  const ticks = (pid: number): number => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]);
  };

  /** Resolves once the process has spent `n` more ticks of CPU after its answer arrived (jq spinning), polling /proc. */
  async function busy(pid: number, n: number): Promise<void> {
    const start = ticks(pid);
    await new Promise<void>((resolve) => {
      const t = setInterval(() => {
        try {
          if (ticks(pid) - start >= n) (clearInterval(t), resolve());
        } catch {
          clearInterval(t);
          resolve();
        }
      }, 20);
    });
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`HELD: ${signal} while 'def f: f; f' spins stops svc at once: exit 130 (or death by SIGINT, 130 in a shell), one line at most, no stack trace`, async () => {
      const arrived = new Promise<void>((resolve) => {
        sandbox().sandbox.hooks.onArrival = () => resolve();
      });
      const s = spawned.start(['accounts', 'count', '--jq', '.count as $n | def f: f; f'], { env: { SVC_JQ_TIMEOUT: '60s' }, killMs: 20_000 });
      await arrived;
      sandbox().sandbox.hooks.onArrival = undefined;
      await busy(s.child.pid ?? 0, 50);
      const sent = Date.now();
      s.child.kill(signal);
      const e = await s.ended;
      expect(Date.now() - sent).toBeLessThan(3000);
      expect(e.code === 130 || e.signal === 'SIGINT', JSON.stringify(e)).toBe(true);
      expect(e.stdout).toBe('');
      expect(e.stderr).not.toMatch(/\n\s+at /);
      if (signal === 'SIGTERM') expect(e.stderr).toBe('svc: interrupted by SIGTERM\n');
    });
  }

  it(
    'jq output past about 113 MB is printed, not a V8 fatal error with a native stack trace (SIGTRAP, exit 133), within the default limits',
    async () => {
      // jq-web collects jq's stdout one byte per array element (outBuffer.push): V8 cannot grow an array past
      // ~112.8M elements and aborts the whole process, before the 30 s limit and far below the 1 GB README names
      // ("its input and output may take 1 GB of the worker's heap ... past any of them svc stops jq and exits 1 saying which").
      // The same happens to `query --all --jq .` on a family whose JSON passes ~113 MB. (About 15 s here: the fastest way.)
      // Changed by the fixer: svc now collects jq's output in chunks up to its 1 GB output limit, so 115 MB is
      // printed (exit 0); past the limit it is exit 1 with one line (test/output/jq.test.ts, with a small limit).
      const e = await spawned.run(['accounts', 'count', '--jq', '"x" * 115000000'], { killMs: 55_000, stdoutLimit: 1000 });
      expect(e.stderr).not.toMatch(/Fatal|Native stack trace/);
      expect({ code: e.code, signal: e.signal, stderr: e.stderr }).toEqual({ code: 0, signal: null, stderr: '' });
      expect(e.stdout.slice(0, 1000)).toBe('x'.repeat(1000));
    },
    60_000,
  );

  it('HELD: a reader that closes the pipe after the first line (| head -1) ends svc --jq quietly, exit 0, no EPIPE', async () => {
    const filter = `lastname ~~ "S8 jq many %"`;
    for (const argv of [
      ['accounts', 'query', '--all', '--filter', filter, '-o', 'ndjson', '--jq', '.'],
      ['accounts', 'query', '--all', '--filter', filter, '--jq', '.[]'],
    ]) {
      const s = spawned.start(argv);
      s.child.stdout?.once('data', () => s.child.stdout?.destroy());
      const e = await s.ended;
      expect({ code: e.code, signal: e.signal, stderr: e.stderr }, argv.join(' ')).toEqual({ code: 0, signal: null, stderr: '' });
    }
  });
});
