/**
 * s9-r2 attack on the process-lifecycle fixes (f3d691c, 50c2940): the built
 * svc (`node bin/svc.js`, spawned with pipes, as cron or a supervisor runs
 * it) against a sandbox failing a share of requests at random, stopped at a
 * seeded moment chosen by an event (the sandbox's n-th request, which is
 * also held back so the signal lands with a request in flight), at
 * concurrency 1 and 4. Then what is on disk (every `*.svc-lock` gone after a
 * graceful end) and whether the same command again converges.
 *
 * What the commit says: "locks are removed by an exit hook when a closed
 * stdout or a third SIGTERM cuts a command short"; "SIGHUP stops export, sync
 * and watch as SIGTERM does (exit 130, what they keep saved)". The README:
 * "Sent a third time, either signal [Ctrl-C or SIGTERM] ends svc at once …,
 * for every command that handles it."
 *
 * Tests marked HELD pass today (claims that held); the others fail now and
 * pass once the fault is fixed.
 * Replay: SVC_S9R2_SEED=<n> npx vitest run test/attack/s9-r2-proc-signals.test.ts
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createRandom } from '../../src/util/random.js';
import { sandboxCli, tempConfigDir } from '../helpers/cli.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { countByKey, readResults, rowsFile } from '../commands/records/import-support.js';
import { insertAccounts } from '../sync/support.js';
import { idsOf, tempDir } from '../watch/support.js';

const SEED = process.env.SVC_S9R2_SEED ? Number(process.env.SVC_S9R2_SEED) : Math.floor(Math.random() * 2 ** 31);
const REPLAY = `replay: SVC_S9R2_SEED=${SEED} npx vitest run test/attack/s9-r2-proc-signals.test.ts`;
const FAULTS = 0.1;

const { sandbox, run } = sandboxCli();
const tally: Record<string, number> = {};
const count = (k: string): void => void (tally[k] = (tally[k] ?? 0) + 1);
afterAll(() => console.log(`s9-r2 proc signals: seed ${SEED}; ${JSON.stringify(tally)}`));
afterEach(() => {
  const s = sandbox();
  s.sandbox.hooks.setFaultRate(0);
  s.sandbox.hooks.onArrival = undefined;
});

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

interface Child {
  readonly child: ChildProcess;
  stderr(): string;
  /** Resolves when `test()` holds (checked on each output), or the child ended. */
  until(test: () => boolean): Promise<void>;
  readonly ended: Promise<Ended>;
}

function spawnSvc(s: TestSandbox, args: readonly string[], extra: Record<string, string> = {}): Child {
  const env = { PATH: process.env.PATH ?? '', HOME: tempConfigDir(), SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1', ...extra };
  const child = spawn(process.execPath, ['bin/svc.js', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let done = false;
  const listeners = new Set<() => void>();
  const poke = (): void => {
    for (const l of [...listeners]) l();
  };
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
    poke();
  });
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
    poke();
  });
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 40_000);
  const ended = new Promise<Ended>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(watchdog);
      done = true;
      poke();
      resolve({ code, signal, stdout: out, stderr: err });
    }),
  );
  return {
    child,
    stderr: () => err,
    ended,
    until: (test) =>
      new Promise((resolve) => {
        const check = (): void => {
          if (!done && !test()) return;
          listeners.delete(check);
          resolve();
        };
        listeners.add(check);
        check();
      }),
  };
}

const SIGNO = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;

/** Whether `signal` is pending for process `pid` (sent, not yet delivered to a handler): /proc/PID/status. */
function pending(pid: number, signal: keyof typeof SIGNO): boolean {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const bit = 1n << BigInt(SIGNO[signal] - 1);
    return ['ShdPnd', 'SigPnd'].some((k) => (BigInt(`0x${new RegExp(`^${k}:\\s*([0-9a-f]+)`, 'm').exec(status)?.[1] ?? '0'}`) & bit) !== 0n);
  } catch {
    return false; // gone
  }
}

/**
 * Sends `signal` `times` times as a person pressing Ctrl-C again does: each only once the one before was
 * delivered (two sent at once while one is pending are one signal to the kernel).
 */
async function sendApart(child: ChildProcess, signal: keyof typeof SIGNO, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    const pid = child.pid!;
    await new Promise<void>((resolve) => {
      const check = (): void => {
        if (pending(pid, signal)) return void setImmediate(check);
        resolve();
      };
      check();
    });
  }
}

/** Lock files (and drafts of them) left in `dir`. */
const locksIn = (dir: string): string[] => readdirSync(dir).filter((f) => f.includes('.svc-lock'));

/** How a process ended, as a shell would say it. */
const endOf = (e: Ended): string => (e.signal ? `killed by ${e.signal}` : `exit ${e.code}`);

describe(`s9-r2: Ctrl-C or SIGTERM sent three times while an import's rows in flight have their grace (SVC_BULK_GRACE=60s) (seed ${SEED})`, () => {
  const trials: { concurrency: number; signal: 'SIGINT' | 'SIGTERM' }[] = [];
  for (const concurrency of [1, 4]) for (const signal of ['SIGTERM', 'SIGINT'] as const) trials.push({ concurrency, signal });
  trials.forEach(({ concurrency, signal }, index) => {
    const held = signal === 'SIGTERM' ? 'HELD: ' : '';
    it(`${held}concurrency ${concurrency}, ${signal} ×3 at a seeded write: svc ends at once, no results.ndjson.svc-lock is left, and --resume makes every row exactly one record`, async () => {
      const s = sandbox();
      const random = createRandom(SEED + 31 * index);
      const prefix = `R2X${index}-`;
      const dir = tempDir();
      const rows = 24;
      const file = rowsFile('rows.ndjson', Array.from({ length: rows }, (_, i) => JSON.stringify({ lastname: `${prefix}${i}`, customernum: `${prefix}${i}`, currency: 'EUR' })).join('\n') + '\n', dir);
      const results = join(dir, 'results.ndjson');
      const args = ['accounts', 'import', '--from', file, '--results', results, '--key', 'customernum', '--concurrency', String(concurrency)];
      const at = random.int(1, rows - 2);
      s.sandbox.hooks.setFaultRate(FAULTS, SEED + index);
      let writes = 0;
      let stalled: () => void = () => undefined;
      const reached = new Promise<void>((r) => (stalled = r));
      s.sandbox.hooks.onArrival = (method) => {
        if (method !== 'PUT' && method !== 'PATCH') return;
        if (++writes !== at) return;
        // The at-th write hangs (the service is slow): its row is in flight when the signals come.
        s.sandbox.hooks.failNext({ method, fault: { delayMs: 30_000 } });
        stalled();
      };
      const c = spawnSvc(s, args, { SVC_BULK_GRACE: '60s' });
      await Promise.race([reached, c.ended]);
      const why0 = `${REPLAY}; ${signal} ×3 at write ${at}`;
      if (writes < at) {
        count('finished-first');
        return;
      }
      c.child.kill(signal);
      // The first is taken: no new row starts, and the one in flight has its grace.
      await c.until(() => c.stderr().includes('starting no more rows'));
      const t0 = Date.now();
      await sendApart(c.child, signal, 2);
      const end = await c.ended;
      const ms = Date.now() - t0;
      s.sandbox.hooks.setFaultRate(0);
      const why = `${why0}; ${endOf(end)} ${ms} ms after the third\n${end.stderr}`;
      count(`${signal}x3 ${endOf(end)}`);
      // "Sent a third time, either signal ends svc at once" (the 30 s stall would otherwise hold it).
      expect(ms, why).toBeLessThan(10_000);
      // The lock of a process that is gone: a second host (a shared volume, another pod) could never take it over.
      // Today the third Ctrl-C is death by SIGINT (Node's default action): no 'exit' event, no exit hooks, the lock stays.
      expect(locksIn(dir), why).toEqual([]);
      const log: string[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await run([...args, '--resume']);
        log.push(`resume: exit ${r.code}: ${r.stderr.trim().split('\n').slice(-1)[0] ?? ''}`);
        if (r.code === 0) break;
      }
      expect(readResults(results).map((l) => l.line), `${why}\n${log.join('\n')}`).toEqual(Array.from({ length: rows }, (_, i) => i + 1));
      expect([...countByKey(s, prefix).values()].filter((n) => n !== 1), `${why}\n${log.join('\n')}`).toEqual([]);
      expect(countByKey(s, prefix).size).toBe(rows);
    }, 60_000);
  });
});

type Cmd = 'export' | 'sync' | 'watch';

/** The command line of each long command, its target in `dir`. */
function longCommand(cmd: Cmd, dir: string, prefix: string, concurrency: number): string[] {
  const common = ['--filter', `lastname ~ "^${prefix} "`, '--fields', 'ID,lastname', '--page-size', '7'];
  if (cmd === 'export') return ['accounts', 'export', ...common, '--concurrency', String(concurrency), '-o', 'ndjson', '--output-file', join(dir, 'out.ndjson')];
  if (cmd === 'sync') return ['accounts', 'sync', ...common, '--concurrency', String(concurrency), '--into', join(dir, 'copy.sqlite')];
  return ['accounts', 'watch', ...common, '--interval', '1s', '--cursor-file', join(dir, 'cursor')];
}

describe(`s9-r2: SIGHUP (a closed terminal, a dropped ssh connection) to export, sync and watch at a seeded request, faults ${FAULTS} (seed ${SEED})`, () => {
  const trials: { cmd: Cmd; concurrency: number; times: 1 | 3 }[] = [];
  for (const times of [1, 3] as const) for (const cmd of ['export', 'sync', 'watch'] as const) for (const concurrency of [1, 4]) trials.push({ cmd, concurrency, times });
  trials.forEach(({ cmd, concurrency, times }, index) => {
    const name =
      times === 1
        ? `HELD: ${cmd}, concurrency ${concurrency}, SIGHUP once: exit 130 saying so, no lock left, and the same command again converges`
        : `${cmd === 'export' ? '' : 'HELD: '}${cmd}, concurrency ${concurrency}, SIGHUP three times (each once the one before was delivered): no lock left, exit 130 as for a third SIGTERM, and the same command again converges${cmd === 'export' ? ' (today export is killed by the third SIGHUP, Node\'s default action once the absorber is spent: no exit hooks, out.ndjson.svc-lock left)' : ''}`;
    it(name, async () => {
      const s = sandbox();
      const random = createRandom(SEED + 97 * index);
      const prefix = `R2H${index}`;
      const ids = insertAccounts(s, 150, Math.floor(Date.now() / 1000) - 3600, prefix);
      const dir = tempDir();
      const args = longCommand(cmd, dir, prefix, concurrency);
      const at = random.int(2, 18);
      s.sandbox.hooks.setFaultRate(FAULTS, SEED + index);
      let seen = 0;
      let c: Child | undefined;
      s.sandbox.hooks.onArrival = (method, url) => {
        if (!url.includes('/api/v1/accounts') || ++seen !== at) return;
        s.sandbox.hooks.failNext({ method, path: '/api/v1/accounts', fault: { delayMs: 5_000 } });
        if (c) void sendApart(c.child, 'SIGHUP', times);
      };
      c = spawnSvc(s, args);
      const end = await c.ended;
      s.sandbox.hooks.onArrival = undefined;
      s.sandbox.hooks.setFaultRate(0);
      const why = `${REPLAY}; ${cmd} SIGHUP ×${times} at request ${at} (reached: ${seen >= at}); ${endOf(end)}\n${end.stderr}`;
      count(`${cmd} ${endOf(end)}`);
      // The lock first: what a killed process leaves (no exit hooks) is what a second host can never take over.
      expect(locksIn(dir), why).toEqual([]);
      if (seen >= at) {
        expect(endOf(end), why).toBe('exit 130');
        expect(end.stderr, why).toMatch(/interrupted by SIGHUP/);
      }
      if (cmd === 'export') {
        const r = await run([...args, '--resume']);
        expect(r.code, `${why}\n${r.stderr}`).toBe(0);
        const lines = readFileSync(join(dir, 'out.ndjson'), 'utf8').split('\n').filter((l) => l !== '');
        expect(lines.map((l) => (JSON.parse(l) as { ID: number }).ID), why).toEqual(ids);
      } else if (cmd === 'sync') {
        const r = await run(args);
        expect(r.code, `${why}\n${r.stderr}`).toBe(0);
        const status = await run(['accounts', 'sync', '--into', join(dir, 'copy.sqlite'), '--status']);
        expect(status.stdout, why).toMatch(/\b150\b/);
      } else {
        const r = await run([...args, '--once']);
        expect(r.code, `${why}\n${r.stderr}`).toBe(0);
        expect(new Set([...idsOf(end.stdout), ...idsOf(r.stdout)]), why).toEqual(new Set(ids));
      }
      expect(locksIn(dir), why).toEqual([]);
    }, 60_000);
  });
});

describe(`s9-r2: SIGHUP to bulk writes at a seeded write, faults ${FAULTS} (seed ${SEED}); handled as SIGTERM since the s10 session (before, it killed them)`, () => {
  const trials: { cmd: 'import' | 'update' | 'delete'; concurrency: number }[] = [];
  for (const cmd of ['import', 'update', 'delete'] as const) for (const concurrency of [1, 4]) trials.push({ cmd, concurrency });
  trials.forEach(({ cmd, concurrency }, index) => {
    it(`${cmd}, concurrency ${concurrency}: SIGHUP stops it as SIGTERM does (exit 130 saying so, no lock left, whole lines; for import one a row in input order), and the same command (--resume for import) finishes the job exactly once`, async () => {
      const s = sandbox();
      const random = createRandom(SEED + 7 * index);
      const prefix = `R2B${index}`;
      const dir = tempDir();
      const results = join(dir, 'results.ndjson');
      const n = 30;
      let args: string[];
      if (cmd === 'import') {
        const file = rowsFile('rows.ndjson', Array.from({ length: n }, (_, i) => JSON.stringify({ lastname: `${prefix}-${i}`, customernum: `${prefix}-${i}`, currency: 'EUR' })).join('\n') + '\n', dir);
        args = ['accounts', 'import', '--from', file, '--key', 'customernum', '--results', results, '--concurrency', String(concurrency)];
      } else {
        insertAccounts(s, n, Math.floor(Date.now() / 1000) - 3600, prefix);
        const filter = ['--filter', `lastname ~ "^${prefix} "`];
        args = cmd === 'update' ? ['accounts', 'update', ...filter, 'description=R2 done', '--yes', '--results', results, '--concurrency', String(concurrency)] : ['accounts', 'delete', ...filter, '--yes', '--results', results, '--concurrency', String(concurrency)];
      }
      const at = random.int(2, 20);
      s.sandbox.hooks.setFaultRate(FAULTS, SEED + index);
      let writes = 0;
      let c: Child | undefined;
      s.sandbox.hooks.onArrival = (method) => {
        if (!['PUT', 'PATCH', 'DELETE'].includes(method) || ++writes !== at) return;
        c?.child.kill('SIGHUP');
      };
      c = spawnSvc(s, args);
      const end = await c.ended;
      s.sandbox.hooks.onArrival = undefined;
      s.sandbox.hooks.setFaultRate(0);
      const why = `${REPLAY}; ${cmd} SIGHUP at write ${at} (reached: ${writes >= at}); ${endOf(end)}; left: ${readdirSync(dir).join(', ')}\n${end.stderr}`;
      count(`${cmd} ${endOf(end)}${locksIn(dir).length ? ' +lock' : ''}`);
      const text = existsSync(results) ? readFileSync(results, 'utf8') : '';
      expect(text === '' || text.endsWith('\n'), why).toBe(true);
      for (const l of text.split('\n').filter((x) => x !== '')) expect(() => JSON.parse(l), why).not.toThrow();
      if (writes >= at) {
        // Before: killed by SIGHUP, its lock left for the next run to take over.
        expect(endOf(end), why).toBe('exit 130');
        expect(end.stderr, why).toMatch(/interrupted by SIGHUP/);
        expect(locksIn(dir), why).toEqual([]);
        if (cmd === 'import') {
          const lines = readResults(results).map((r) => r.line ?? 0);
          expect(lines, why).toEqual([...new Set(lines)].sort((a, b) => a - b));
        }
      }
      const again = await run(cmd === 'import' ? [...args, '--resume'] : args);
      const why2 = `${why}\nagain: exit ${again.code}: ${again.stderr}`;
      if (cmd === 'import') {
        expect(again.code, why2).toBe(0);
        expect([...countByKey(s, prefix).values()].filter((x) => x !== 1), why2).toEqual([]);
        expect(countByKey(s, prefix).size, why2).toBe(n);
      } else if (cmd === 'update') {
        expect(again.code, why2).toBe(0);
        const left = await run(['accounts', 'count', '--filter', `lastname ~ "^${prefix} " and description != "R2 done"`, '-o', 'json']);
        expect(JSON.parse(left.stdout), why2).toEqual({ count: 0 });
      } else {
        expect([0, 2], why2).toContain(again.code);
        const left = await run(['accounts', 'count', '--filter', `lastname ~ "^${prefix} "`, '-o', 'json']);
        expect(JSON.parse(left.stdout), why2).toEqual({ count: 0 });
      }
      expect(locksIn(dir), why2).toEqual([]);
    }, 60_000);
  });
});
