/**
 * s9 attack on `svc <family> watch`: the built svc (spawned, real signals)
 * stopped at moments chosen by events, with the sandbox's faults on, one
 * watcher at a time and four at once (each its own filter and cursor file),
 * while the family changes at the sandbox's requests (updates, records
 * leaving and re-entering the filter, deletions, creations; each change
 * gives the record values it never had, so a line written twice is a
 * repeat). The moments: after the N-th line of a run, after the N-th save of
 * its cursor file (seen by fs.watch), or while it waits to try a failed poll
 * again (500s injected; its "poll failed" line on stderr), or while its
 * n-th comparison of IDs (the reconcile) is in flight. SIGINT, SIGTERM
 * or SIGKILL. Then quiet runs with --once, and the feed replayed must be the
 * family as the sandbox holds it; a line may repeat the one before it for
 * its ID only when that one came from a run killed with SIGKILL.
 *
 * And the service going away (a TCP proxy in front of the sandbox, closed
 * and opened again on the same port): a short outage is ridden out, a long
 * one ends the watch with exit 1 and one line, its cursor saved, and the run
 * after it misses and repeats nothing.
 *
 * Replay: SVC_S9_SEED=<n> npx vitest run test/attack/s9-watch-signals.test.ts
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { watch as watchDir } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { table } from '../../src/sandbox/schema.js';
import { createRandom, type Random } from '../../src/util/random.js';
import { sandboxCli, tempConfigDir } from '../helpers/cli.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { nextQuery, tempDir } from '../watch/support.js';

const SEED = process.env.SVC_S9_SEED ? Number(process.env.SVC_S9_SEED) : Math.floor(Math.random() * 2 ** 31);
const REPLAY = `replay: SVC_S9_SEED=${SEED} npx vitest run test/attack/s9-watch-signals.test.ts`;
const FAULTS = 0.05;

const { sandbox, run } = sandboxCli();
const T = table('demo', 'accounts');
const tally: Record<string, number> = {};
afterAll(() => console.log(`s9 watch signals: seed ${SEED}; stops by moment and end: ${JSON.stringify(tally)}`));

/** The built svc, its stdout lines and stderr as they come, and its end. */
interface Child {
  readonly child: ChildProcess;
  lines(): string[];
  stderr(): string;
  /** Resolves when `test()` holds (checked on every output and every `poke`), or the child ended. */
  until(test: () => boolean): Promise<void>;
  /** Checks the waiting tests again (an event outside the child: a file saved, a request). */
  poke(): void;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function spawnWatch(url: string, token: string, args: readonly string[]): Child {
  const env = { ...process.env, SVC_URL: url, SVC_TOKEN: token, SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' };
  const child = spawn(process.execPath, ['bin/svc.js', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
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
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 60_000);
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(watchdog);
      done = true;
      poke();
      resolve({ code, signal });
    }),
  );
  return {
    child,
    lines: () => out.split('\n').filter((l) => l !== ''),
    stderr: () => err,
    exited,
    poke,
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

interface Rec {
  ID: number;
  lastname: string;
  firstname: string | null;
}

/** A family under a prefix whose every change gives a record values it never had. */
function family(s: TestSandbox, p: string, random: Random): { mutate(): void } {
  const db = s.sandbox.db;
  let n = 0;
  const stamp = (): number => Math.floor(Date.now() / 1000);
  const insert = (): void => void db.prepare(`INSERT INTO ${T} (lastname, currency, firstname, creationdate, lastmodified) VALUES (?, 'EUR', ?, ?, ?)`).run(`${p}${++n}`, `c${n}`, stamp(), stamp());
  for (let i = 0; i < 12; i++) insert();
  const ids = (): number[] => (db.prepare(`SELECT ID FROM ${T} WHERE lastname LIKE ? OR lastname LIKE ? ORDER BY ID`).all(`${p}%`, `X${p}%`) as { ID: number }[]).map((r) => r.ID);
  return {
    mutate() {
      const all = ids();
      const id = random.pick(all);
      const k = random.int(0, 9);
      if (k < 5) db.prepare(`UPDATE ${T} SET firstname = ?, lastmodified = ? WHERE ID = ?`).run(`u${++n}`, stamp(), id);
      else if (k < 7) db.prepare(`UPDATE ${T} SET lastname = CASE WHEN lastname LIKE ? THEN substr(lastname, 2) ELSE 'X' || lastname END, firstname = ?, lastmodified = ? WHERE ID = ?`).run(`X${p}%`, `f${++n}`, stamp(), id);
      else if (k < 8 && all.length > 6) db.prepare(`DELETE FROM ${T} WHERE ID = ?`).run(id);
      else insert();
    },
  };
}

/** The records the sandbox holds under the prefix, as the feed writes them. */
function actual(s: TestSandbox, p: string): string[] {
  const rows = s.sandbox.db.prepare(`SELECT ID, lastname, firstname FROM ${T} WHERE lastname LIKE ? ORDER BY ID`).all(`${p}%`) as Rec[];
  return rows.map((r) => JSON.stringify(r));
}

/** One run's lines, and whether it was killed outright. */
interface RunLines {
  readonly lines: readonly string[];
  readonly killed: boolean;
  readonly what: string;
}

/** The feed replayed: the records it leaves, and the repeats not allowed (the line before for the ID came from a run that was not killed). */
function replay(runs: readonly RunLines[]): { model: string[]; repeats: string[] } {
  const model = new Map<number, string>();
  const last = new Map<number, { line: string; run: number }>();
  const repeats: string[] = [];
  runs.forEach((r, i) => {
    for (const line of r.lines) {
      const l = JSON.parse(line) as { op: string; record: Rec };
      const before = last.get(l.record.ID);
      if (before?.line === line && !runs[before.run]!.killed) repeats.push(`run ${i} (${r.what}) repeats run ${before.run} (${runs[before.run]!.what}): ${line}`);
      last.set(l.record.ID, { line, run: i });
      if (l.op === 'upsert') model.set(l.record.ID, JSON.stringify(l.record));
      else model.delete(l.record.ID);
    }
  });
  return { model: [...model.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v), repeats };
}

type Moment = { kind: 'line'; n: number } | { kind: 'save'; n: number } | { kind: 'retry' } | { kind: 'reconcile'; n: number };
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGKILL'] as const;

describe(`s9 watch: the built svc stopped at event-chosen moments, faults ${FAULTS} (seed ${SEED})`, () => {
  it.each([1, 4])('%i watcher(s) at once: each replayed feed is its family, no line repeated but after SIGKILL', async (watchers) => {
    const s = sandbox();
    const random = createRandom(SEED + watchers);
    const families = Array.from({ length: watchers }, (_, w) => {
      const p = `S9sig${watchers}w${w}-`;
      return { p, fam: family(s, p, createRandom(SEED * 7 + w + watchers)), cursor: join(tempDir(), 'c'), runs: [] as RunLines[] };
    });
    const log: string[] = [];
    let mutating = true;
    s.sandbox.hooks.onArrival = () => {
      if (mutating && random.chance(0.3)) random.pick(families).fam.mutate();
    };
    s.sandbox.hooks.setFaultRate(FAULTS, SEED);
    // Each query's body as it arrives (the ID comparison asks for IDs only, with the watcher's filter).
    const bodyListeners = new Set<(body: string) => void>();
    const requests = s.sandbox.hooks.requests;
    const push = requests.push.bind(requests);
    requests.push = (...items) => {
      for (const r of items) if (r.method === 'POST' && /\/api\/v1\/accounts$/.test(r.url)) for (const l of [...bodyListeners]) l(JSON.stringify(r.body));
      return push(...items);
    };
    const argsOf = (f: (typeof families)[number], pageSize: number): string[] => [
      'accounts', 'watch', '--filter', `lastname ~ "^${f.p}"`, '--fields', 'ID,lastname,firstname', '--page-size', String(pageSize), '--interval', '30ms', '--reconcile-every', '1', '--cursor-file', f.cursor,
    ];
    try {
      await Promise.all(
        families.map(async (f, w) => {
          const r = createRandom(SEED + 1000 * watchers + w);
          for (let round = 0; round < 3; round++) {
            const signal = r.pick(SIGNALS);
            const k = r.int(0, 6);
            const moment: Moment = k < 2 ? { kind: 'line', n: r.int(1, 8) } : k < 4 ? { kind: 'save', n: r.int(1, 8) } : k < 5 ? { kind: 'retry' } : { kind: 'reconcile', n: r.int(1, 4) };
            const what = `watcher ${w} round ${round}: ${signal} at ${JSON.stringify(moment)}`;
            const dir = join(f.cursor, '..');
            let saves = 0;
            let child: Child | undefined;
            const fsw = watchDir(dir, (_e, name) => {
              if (name === 'c') saves++;
              child?.poke();
            });
            child = spawnWatch(s.instanceUrl, s.token(), argsOf(f, r.int(1, 5)));
            try {
              if (moment.kind === 'retry') {
                // Twelve 500s for the next queries (any watcher's): a poll fails and waits to be tried again.
                await child.until(() => child.lines().length > 0);
                s.sandbox.hooks.failNext({ method: 'POST', path: '/api/v1/accounts', times: 12, fault: { status: 500, body: 'sandbox: injected' } });
                // (Other watchers may take the 500s: then after ten more lines.)
                const seen = child.lines().length;
                await child.until(() => child.stderr().includes('poll failed') || child.lines().length >= seen + 10);
              } else if (moment.kind === 'reconcile') {
                // The n-th ID comparison of this watcher is in flight (the signal goes before the sandbox answers).
                let seen = 0;
                let hit = false;
                const listener = (body: string): void => {
                  if (hit || !body.includes(f.p) || !body.includes('"fields":{"ID":"ID"}')) return;
                  if (++seen < moment.n) return;
                  hit = true;
                  child!.child.kill(signal);
                  child!.poke();
                };
                bodyListeners.add(listener);
                await child.until(() => hit);
                bodyListeners.delete(listener);
              } else if (moment.kind === 'line') {
                await child.until(() => child.lines().length >= moment.n);
              } else {
                const from = saves;
                await child.until(() => saves - from >= moment.n || child.lines().length >= 40);
              }
              child.child.kill(signal);
              const end = await child.exited;
              const stderr = child.stderr().trim().split('\n');
              const how = `${what}: exit ${end.code ?? end.signal}, ${child.lines().length} lines; stderr ${stderr.join(' | ')}`;
              log.push(how);
              const key = `${moment.kind}/${end.signal ?? end.code}`;
              tally[key] = (tally[key] ?? 0) + 1;
              // A run that ended by itself: only "the service kept failing", exit 1, cursor saved.
              const gaveUp = end.code === 1 && /kept failing/.test(stderr.at(-1) ?? '');
              if (!gaveUp) {
                if (signal === 'SIGKILL') expect(end.signal, `${REPLAY}\n${how}`).toBe('SIGKILL');
                else expect([end.code, stderr.at(-1)], `${REPLAY}\n${how}`).toEqual([130, `svc: interrupted by ${signal}`]);
              }
              f.runs.push({ lines: child.lines(), killed: end.signal === 'SIGKILL', what: how });
            } finally {
              fsw.close();
            }
          }
        }),
      );
    } finally {
      mutating = false;
      s.sandbox.hooks.onArrival = undefined;
      s.sandbox.hooks.setFaultRate(0);
      requests.push = push;
    }
    for (const [w, f] of families.entries()) {
      // Three quiet runs: the first may end a first poll (which goes on above its last ID: a change below it is
      // the next poll's), the second writes what is left, the third nothing.
      for (let q = 0; q < 3; q++) {
        const r = await run([...argsOf(f, 3), '--once']);
        expect(r.code, `${REPLAY}\nwatcher ${w} quiet run ${q}: ${r.stderr}\n${log.join('\n')}`).toBe(0);
        f.runs.push({ lines: r.stdout.split('\n').filter(Boolean), killed: false, what: `quiet run ${q}` });
      }
      const { model, repeats } = replay(f.runs);
      const why = `${REPLAY}\nwatcher ${w}:\n${log.join('\n')}\nfeed:\n${f.runs.map((r) => `-- ${r.what}\n${r.lines.join('\n')}`).join('\n')}`;
      expect(model, why).toEqual(actual(s, f.p));
      expect(repeats, why).toEqual([]);
      // The last quiet run had nothing left to write.
      expect(f.runs.at(-1)!.lines, why).toEqual([]);
    }
  }, 60_000);
});

/** A TCP proxy in front of the sandbox that can go away and come back on the same port. */
async function proxy(target: number): Promise<{ port: number; down(): Promise<void>; up(): Promise<void>; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = (): Promise<void> =>
    new Promise((resolve, reject) => {
      server = createServer((client) => {
        const upstream = connect(target, '127.0.0.1');
        sockets.add(client).add(upstream);
        const end = (): void => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', end).on('close', end);
        upstream.on('error', end).on('close', end);
        client.pipe(upstream).pipe(client);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port;
        resolve();
      });
    });
  const down = async (): Promise<void> => {
    const s = server;
    server = undefined;
    for (const so of sockets) so.destroy();
    sockets.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  return { port, down, up: listen, close: down };
}

describe('s9 watch: the service goes away and comes back (a proxy closed and opened again on the same port)', () => {
  const p = 'S9away-';
  /** Without a filter and without ID comparisons: a failing poll is three tries of one page of one record (a few seconds). */
  const plain = (cursor: string): string[] => ['accounts', 'watch', '--fields', 'ID,lastname,firstname', '--page-size', '1', '--interval', '10ms', '--reconcile-every', '1000', '--cursor-file', cursor];
  const filtered = (cursor: string): string[] => ['accounts', 'watch', '--filter', `lastname ~ "^${p}"`, '--fields', 'ID,lastname,firstname', '--page-size', '1', '--interval', '10ms', '--reconcile-every', '1000', '--cursor-file', cursor];
  const insert = (s: TestSandbox, name: string): number => {
    const now = Math.floor(Date.now() / 1000);
    return Number(s.sandbox.db.prepare(`INSERT INTO ${T} (lastname, currency, firstname, creationdate, lastmodified) VALUES (?, 'EUR', 'a', ?, ?)`).run(name, now, now).lastInsertRowid);
  };
  const line = (id: number, lastname: string, firstname = 'a'): string => JSON.stringify({ op: 'upsert', family: 'accounts', record: { ID: id, lastname, firstname } });

  /** A watch past its first poll (its cursor file made by a run through the proxy: a cursor file is tied to the instance URL), then started through the proxy. */
  async function watching(s: TestSandbox, port: number, args: string[]): Promise<Child> {
    const first = await run([...args, '--once', '--since', 'now'], { env: { SVC_URL: `http://127.0.0.1:${port}/demo` } });
    expect(first.code, first.stderr).toBe(0);
    const polling = nextQuery(s);
    const child = spawnWatch(`http://127.0.0.1:${port}/demo`, s.token(), args);
    await Promise.race([polling, child.exited]);
    return child;
  }

  it('HELD: a short outage (back after two failed polls) is ridden out: the changes made meanwhile come once, in order, the run goes on, Ctrl-C is 130', async () => {
    const s = sandbox();
    const px = await proxy(s.sandbox.port);
    try {
      const cursor = join(tempDir(), 'c');
      const child = await watching(s, px.port, plain(cursor));
      const a = insert(s, `${p}a`);
      await child.until(() => child.lines().length >= 1);
      await px.down();
      const b = insert(s, `${p}b`);
      s.sandbox.db.prepare(`UPDATE ${T} SET firstname = 'z', lastmodified = ? WHERE ID = ?`).run(Math.floor(Date.now() / 1000), a);
      await child.until(() => (child.stderr().match(/poll failed/g) ?? []).length >= 2);
      await px.up();
      await child.until(() => child.lines().length >= 3);
      child.child.kill('SIGINT');
      const end = await child.exited;
      const why = `stderr: ${child.stderr()}\nlines: ${child.lines().join('\n')}`;
      expect(end.code, why).toBe(130);
      expect(child.lines(), why).toEqual([line(a, `${p}a`), line(a, `${p}a`, 'z'), line(b, `${p}b`)]);
      expect(child.stderr(), why).toMatch(/poll failed \(POST http:\/\/127\.0\.0\.1:\d+\/demo\/api\/v1\/accounts: connection refused; is the service \(or svc sandbox\) running\?\); trying again in 10ms/);
      const resumed = await run([...plain(cursor), '--once'], { env: { SVC_URL: `http://127.0.0.1:${px.port}/demo` } });
      expect(resumed).toMatchObject({ code: 0, stdout: '' });
    } finally {
      await px.close();
    }
  }, 30_000);

  it('with a filter, a service that refuses connections is said to be failing within seconds, not after ≈13 s of halving pages of 10,000 IDs (a refused connection is not about the page\'s size)', async () => {
    const s = sandbox();
    const px = await proxy(s.sandbox.port);
    try {
      const cursor = join(tempDir(), 'c');
      const child = await watching(s, px.port, filtered(cursor));
      const a = insert(s, `${p}da`);
      await child.until(() => child.lines().length >= 1);
      await px.down();
      // The poll in flight fails in pass 1 (pages of one record: three tries); the one tried after it begins
      // with pass 2, the IDs changed, asked 10,000 a page.
      await child.until(() => child.stderr().includes('poll failed'));
      const firstAt = performance.now();
      await child.until(() => (child.stderr().match(/poll failed/g) ?? []).length >= 2);
      const waited = performance.now() - firstAt;
      child.child.kill('SIGINT');
      const end = await child.exited;
      expect(child.lines()).toEqual([line(a, `${p}da`)]);
      expect(end.code).toBe(130);
      // Today ≈ 13 s at --interval 10ms --page-size 1: the IDs changed (10,000 a page, whatever --page-size says)
      // are asked again at 5,000, 2,500, … 1, four attempts at each size, before the poll counts as failed; the
      // watch gives up after four such polls (≈ 55 s; at the default 10s interval over two minutes; `--once`
      // from cron against a service that is down: 55 s), saying nothing for the first 13 s.
      expect(Math.round(waited), child.stderr()).toBeLessThan(5_000);
    } finally {
      await px.close();
    }
  }, 30_000);

  it('HELD: a long outage ends the watch (exit 1, its last line saying so, cursor saved); back again, the next run writes exactly the changes made since', async () => {
    const s = sandbox();
    const px = await proxy(s.sandbox.port);
    try {
      const cursor = join(tempDir(), 'c');
      const child = await watching(s, px.port, plain(cursor));
      const a = insert(s, `${p}la`);
      await child.until(() => child.lines().length >= 1);
      await px.down();
      const b = insert(s, `${p}lb`);
      const end = await child.exited;
      const why = `stderr: ${child.stderr()}`;
      expect(end.code, why).toBe(1);
      expect(child.stderr().trim().split('\n').at(-1), why).toMatch(/^svc: accounts watch stopped: the service kept failing \(.*connection refused.*\) over 4 polls; the cursor is at the last line written$/);
      expect(child.lines()).toEqual([line(a, `${p}la`)]);
      await px.up();
      const resumed = await run([...plain(cursor), '--once'], { env: { SVC_URL: `http://127.0.0.1:${px.port}/demo` } });
      expect(resumed).toMatchObject({ code: 0, stdout: `${line(b, `${p}lb`)}\n` });
    } finally {
      await px.close();
    }
  }, 30_000);
});
