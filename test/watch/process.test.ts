/**
 * The built svc watching (spawned, real signals and pipes), stopped at a
 * seeded moment — when the sandbox receives its n-th query, so a poll is in
 * flight — with the sandbox's faults on, then resumed from its cursor file:
 * (a seeded change, then a seeded pass of the poll that sees it)
 * - SIGINT/SIGTERM: exit 130; the lines of both runs are exactly the changes;
 * - SIGKILL: nothing missed, and the only lines repeated are ones the killed
 *   run wrote after the state its cursor file holds;
 * - a reader that closes standard output: exit 0, and the resumed run writes
 *   the line that could not be written, not the one written before.
 * Needs `npm run build`.
 * Replay: SVC_WATCH_SEED=<n> npx vitest run test/watch/process.test.ts
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRandom } from '../../src/util/random.js';
import { sandboxCli } from '../helpers/cli.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { createAccount, del, deleteAccount, nextQuery, onQueryBody, readCursor, spawnSvc, tempDir, updateAccount, upsert, type Spawned } from './support.js';

const SEED = process.env.SVC_WATCH_SEED ? Number(process.env.SVC_WATCH_SEED) : Math.floor(Math.random() * 2 ** 31);
const REPLAY = `replay: SVC_WATCH_SEED=${SEED} npx vitest run test/watch/process.test.ts`;
const FAULTS = 0.1;

const { sandbox, run } = sandboxCli();

const watchArgs = (prefix: string, cursor: string): string[] => [
  'accounts', 'watch', '--filter', `lastname ~ "^${prefix}"`, '--fields', 'ID,lastname,firstname', '--interval', '50ms', '--reconcile-every', '1', '--cursor-file', cursor,
];

/** Runs a change with the faults off (the test's own requests must not fail). */
async function unfaulted<T>(s: TestSandbox, change: () => Promise<T>): Promise<T> {
  const rate = s.sandbox.hooks.faultRate;
  s.sandbox.hooks.faultRate = 0;
  try {
    return await change();
  } finally {
    s.sandbox.hooks.faultRate = rate;
  }
}

/** The series of changes: each step makes one and answers the line it must yield. */
function script(s: TestSandbox, p: string): (() => Promise<string>)[] {
  let a = 0;
  let b = 0;
  let c = 0;
  return [
    async () => upsert((a = await createAccount(s, `${p}a`)), `${p}a`),
    async () => (await updateAccount(s, a, { firstname: 'Hamburg' }), upsert(a, `${p}a`, 'Hamburg')),
    async () => upsert((b = await createAccount(s, `${p}b`)), `${p}b`),
    async () => (await deleteAccount(s, b), del(b)),
    async () => (await updateAccount(s, a, { lastname: `X${p}a` }), del(a)),
    async () => upsert((c = await createAccount(s, `${p}c`)), `${p}c`),
    async () => (await updateAccount(s, c, { firstname: 'Köln' }), upsert(c, `${p}c`, 'Köln')),
    async () => (await updateAccount(s, c, { firstname: 'Ulm' }), upsert(c, `${p}c`, 'Ulm')),
  ];
}

/** Which request of a poll: F the records changed (pass 1), U the IDs changed (pass 2), R the IDs matching (pass 3). */
type Pass = 'F' | 'U' | 'R';
const passOf = (body: { fields?: Record<string, string> }): Pass => (body.fields?.firstname ? 'F' : body.fields?.lastmodified ? 'U' : 'R');

/**
 * Starts the built watch and plays the script, one change at a time, each once the line of the one before
 * came. `stop` is sent when, after change `step` was made, the watch's next pass-1 request has arrived and
 * then its first request of `pass`: a poll is in flight, and (R) the lines of that change may be out
 * while the cursor file does not hold them yet. Answers the lines expected from the changes made, and the run.
 */
async function playUntilStopped(prefix: string, cursor: string, step: number, pass: Pass, stop: NodeJS.Signals): Promise<{ expected: string[]; child: Spawned; end: Awaited<Spawned['exited']> }> {
  const s = sandbox();
  const polling = nextQuery(s);
  const child = spawnSvc(s, [...watchArgs(prefix, cursor), '--since', 'now']);
  await Promise.race([polling, child.exited]);
  let armed = false;
  let sawF = false;
  let stopped = false;
  const unhook = onQueryBody(s, (body) => {
    if (!armed || stopped) return;
    const p = passOf(body as { fields?: Record<string, string> });
    if (p === 'F' && !sawF) {
      sawF = true;
      if (pass !== 'F') return;
    }
    if (sawF && p === pass) {
      stopped = true;
      child.child.kill(stop);
    }
  });
  const expected: string[] = [];
  for (const [i, change] of script(s, prefix).entries()) {
    if (stopped) break;
    expected.push(await unfaulted(s, change));
    if (i === step) armed = true;
    await Promise.race([child.waitLines(expected.length, 30_000), child.exited]);
  }
  if (!stopped) child.child.kill(stop);
  const end = await child.exited;
  unhook();
  return { expected, child, end };
}

/** The hash the watch keeps of a record it wrote (as src/watch/engine.ts makes it). */
const hashOf = (record: unknown): number => createHash('sha256').update(JSON.stringify(record)).digest().readUIntBE(0, 6);

/** The lines of a run whose effect the cursor file does not hold (written after the state it saved). */
function unsavedLines(lines: readonly string[], cursor: string): Set<string> {
  const state = readCursor(cursor) as { known: number[]; window: [number, number, number][] };
  const known = new Set<number>();
  for (let i = 0; i < state.known.length; i += 2) for (let id = state.known[i]!; id <= state.known[i + 1]!; id++) known.add(id);
  const window = new Map(state.window.map(([id, , hash]) => [id, hash]));
  const out = new Set<string>();
  for (const line of lines) {
    const { op, record } = JSON.parse(line) as { op: string; record: { ID: number } };
    const saved = op === 'delete' ? !known.has(record.ID) : window.get(record.ID) === hashOf(record);
    if (!saved) out.add(line);
  }
  return out;
}

const tally = { runs: 0, repeats: 0, pending: 0 };
afterAll(() => console.log(`watch stops: seed ${SEED}; ${tally.runs} runs, ${tally.pending} changes left for the resumed run, ${tally.repeats} lines repeated after SIGKILL`));

describe(`the built watch stopped at a seeded moment with --faults ${FAULTS}, then resumed (seed ${SEED})`, () => {
  const trials: [NodeJS.Signals, number][] = [['SIGINT', 0], ['SIGTERM', 1], ['SIGTERM', 2], ['SIGKILL', 3], ['SIGKILL', 4], ['SIGKILL', 5]];
  for (const [signal, trial] of trials) {
    it(`${signal} #${trial} (seed ${SEED})`, async () => {
      const s = sandbox();
      const random = createRandom(SEED + 101 * trial);
      const step = random.int(0, 7);
      const pass = (['F', 'U', 'R'] as const)[random.int(0, 2)]!;
      const prefix = `WP${trial}${signal.slice(3, 5)}-`;
      const cursor = join(tempDir(), 'accounts.cursor');
      s.sandbox.hooks.setFaultRate(FAULTS, SEED + trial);
      try {
        const { expected, child, end } = await playUntilStopped(prefix, cursor, step, pass, signal);
        const why = `${REPLAY}; ${signal} at pass ${pass} after change ${step + 1}\nstderr: ${end.stderr}`;
        const first = child.lines();
        if (signal === 'SIGKILL') expect(end.signal, why).toBe('SIGKILL');
        else expect([end.code, end.stderr.trim().split('\n').at(-1)], why).toEqual([130, `svc: interrupted by ${signal}`]);
        const unsaved = signal === 'SIGKILL' ? unsavedLines(first, cursor) : new Set<string>();
        const resumed = await run([...watchArgs(prefix, cursor), '--once']);
        const second = resumed.stdout.split('\n').filter((l) => l !== '');
        const all = `${why}\nfirst run: ${first.join('\n')}\nresumed (exit ${resumed.code}): ${second.join('\n')}\n${resumed.stderr}`;
        tally.runs++;
        tally.pending += expected.length - first.length;
        // The first run wrote the changes in order, none wrong.
        expect(first, all).toEqual(expected.slice(0, first.length));
        expect(resumed.code, all).toBe(0);
        const rest = expected.slice(first.length);
        if (signal !== 'SIGKILL') {
          expect(second, all).toEqual(rest);
          return;
        }
        // SIGKILL: every change missing from the first run comes now; a line repeated is one written after the saved state.
        const repeated = second.filter((l) => !rest.includes(l));
        tally.repeats += repeated.length;
        for (const line of repeated) expect(unsaved.has(line), `${all}\nrepeated but saved: ${line}`).toBe(true);
        expect(second.filter((l) => rest.includes(l)).sort(), all).toEqual([...rest].sort());
        expect(new Set(second).size, all).toBe(second.length);
      } finally {
        s.sandbox.hooks.setFaultRate(0);
      }
    }, 60_000);
  }
});

describe('a reader that closes standard output', () => {
  it('ends the watch quietly (exit 0); the resumed run writes the line that was not read, and takes over the lock', async () => {
    const s = sandbox();
    const cursor = join(tempDir(), 'accounts.cursor');
    const polling = nextQuery(s);
    const child = spawnSvc(s, [...watchArgs('WE-', cursor), '--since', 'now']);
    await Promise.race([polling, child.exited]);
    const a = await createAccount(s, 'WE-a');
    await child.waitLines(1);
    child.child.stdout?.destroy(); // like `| head -1` once it has its line
    const b = await createAccount(s, 'WE-b');
    const end = await child.exited;
    expect([end.code, end.signal, end.stderr]).toEqual([0, null, '']);
    expect(child.lines()).toEqual([upsert(a, 'WE-a')]);
    const resumed = await run([...watchArgs('WE-', cursor), '--once']);
    expect(resumed).toEqual({ code: 0, stdout: `${upsert(b, 'WE-b')}\n`, stderr: '' });
  }, 30_000);
});
