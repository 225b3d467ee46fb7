/**
 * The export chaos suite: the built svc exports from a sandbox that fails
 * requests at random (503, 429, dropped connections, slow answers), at
 * concurrency 1, 2 and 4, and is stopped by SIGINT, SIGTERM or SIGKILL at a
 * seeded moment (when the sandbox receives its n-th page request, which for
 * half the SIGINT/SIGTERM stops then hangs unanswered), with the checkpoint
 * saved every 1 ms, 25 ms or 1 s, then resumed, sometimes more than once.
 * Properties:
 * - SIGINT and SIGTERM end the run within 10 s (it waits on nothing: not on
 *   a hanging request, a retry pause or a full pipe), with exit 130;
 * - a stopped run leaves the target untouched (exit 130, or killed), and its
 *   checkpoint never claims more than the partial file holds: the partial
 *   file's first `bytes` bytes are exactly the clean export's first bytes;
 * - a run that exits 0 wrote every row: the file is byte-identical to a clean
 *   export, and nothing is left beside it (partial, checkpoint, lock).
 *
 * Replay a failure: SVC_CHAOS_SEED=<seed> npx vitest run test/export/chaos.test.ts
 * (the seed is in every test's name and failure message). Needs `npm run build`.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRandom, type Random } from '../../src/util/random.js';
import { sandboxCli, tempConfigDir } from '../helpers/cli.js';
import { onRequest, seedTrickyAccounts, tempDir } from './support.js';

const SEED = process.env.SVC_CHAOS_SEED ? Number(process.env.SVC_CHAOS_SEED) : Math.floor(Math.random() * 2 ** 31);
const REPLAY = `replay: SVC_CHAOS_SEED=${SEED} npx vitest run test/export/chaos.test.ts`;
const FORMATS = ['csv', 'ndjson', 'json'] as const;
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGKILL'] as const;
const CONCURRENCY = [1, 2, 4] as const;
/** Share of requests the sandbox fails at random during the trials. */
const FAULT_RATE = 0.15;
const ACCOUNTS = 1500;
/** Trials per concurrency and signal (SVC_CHAOS_TRIALS raises it for a longer hunt). */
const TRIALS = Number(process.env.SVC_CHAOS_TRIALS ?? 2);

type Format = (typeof FORMATS)[number];
type Signal = (typeof SIGNALS)[number];

const { sandbox, run } = sandboxCli();
const clean = new Map<Format, Buffer>();
let total = 0;

beforeAll(async () => {
  seedTrickyAccounts(sandbox(), ACCOUNTS);
  total = Number(JSON.parse((await run(['accounts', 'count', '-o', 'json'])).stdout).count);
  for (const format of FORMATS) {
    const file = join(tempDir(), `clean.${format}`);
    expect((await run(['accounts', 'export', '--format', format, '--output-file', file])).code).toBe(0);
    clean.set(format, readFileSync(file));
  }
}, 60_000);

interface Outcome {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
  /** Milliseconds from the signal to the exit, when one was sent. */
  readonly exitMs: number | undefined;
}

/** How long a stopped export may take to exit after SIGINT or SIGTERM: far above what it needs, far below "hangs". */
const EXIT_WITHIN_MS = 10_000;

/**
 * Runs the built svc once; with `stop`, sends its signal when the sandbox
 * receives its stop.at-th page request (with `stall`, while that request
 * hangs unanswered). `checkpointEvery` sets how often the checkpoint is saved
 * (SVC_CHECKPOINT_EVERY), so kill -9 meets real checkpoints.
 */
async function exportOnce(args: readonly string[], checkpointEvery: string | undefined, stop?: { at: number; signal: Signal; stall: boolean }): Promise<Outcome> {
  const s = sandbox();
  const env = { ...process.env, SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1', ...(checkpointEvery ? { SVC_CHECKPOINT_EVERY: checkpointEvery } : {}) };
  const child = spawn(process.execPath, ['bin/svc.js', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  tally.runs++;
  let stderr = '';
  let signalled = 0;
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const send = (): void => {
    signalled = Date.now();
    child.kill(stop?.signal);
  };
  let unhook = (): void => undefined;
  if (stop?.stall) {
    // The stop.at-th page request stalls for a minute, and the signal comes while svc waits for it.
    let arrived = 0;
    s.sandbox.hooks.onArrival = (_method, url) => {
      if (!url.includes('/api/v1/accounts') || ++arrived !== stop.at) return;
      s.sandbox.hooks.failNext({ path: url, fault: { delayMs: 60_000 } });
      setImmediate(send);
    };
    unhook = () => (s.sandbox.hooks.onArrival = undefined);
  } else if (stop) {
    unhook = onRequest(s, '/api/v1/accounts', (n) => void (n === stop.at && send()));
  }
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 110_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) => child.on('close', (c, sig) => r([c, sig])));
  clearTimeout(watchdog);
  unhook();
  return { code, signal, stderr, exitMs: signalled ? Date.now() - signalled : undefined };
}

/** What the trials exercised, printed at the end (so a run shows the properties were really tested). */
const tally = { trials: 0, stops: 0, checkpointed: 0, completedEarly: 0, gaveUpEarly: 0, runs: 0 };
afterAll(() => {
  console.log(`chaos: seed ${SEED}; ${tally.trials} trials, ${tally.runs} svc runs, ${tally.stops} stops (${tally.checkpointed} with a checkpoint covering rows), ${tally.completedEarly} finished before their signal, ${tally.gaveUpEarly} gave up on the faults before it`);
});

/** What a stopped run must leave: the old file, and a checkpoint covering only bytes that are in the partial file. */
function checkStopped(file: string, reference: Buffer, why: string): void {
  expect(readFileSync(file, 'utf8'), `${why}: the target changed`).toBe('previous\n');
  const ckPath = `${file}.svc-checkpoint.json`;
  tally.stops++;
  if (!existsSync(ckPath)) return;
  const ck = JSON.parse(readFileSync(ckPath, 'utf8')) as { bytes: number; rows: number };
  const partial = readFileSync(`${file}.svc-partial`);
  expect(partial.length, `${why}: the partial file is shorter than its checkpoint`).toBeGreaterThanOrEqual(ck.bytes);
  expect(partial.subarray(0, ck.bytes).equals(reference.subarray(0, ck.bytes)), `${why}: the checkpointed prefix differs from a clean export`).toBe(true);
  expect(ck.rows, `${why}: checkpoint rows`).toBeLessThanOrEqual(total);
  if (ck.rows > 0) tally.checkpointed++;
}

/** What a run that exits 0 must leave: every row, and nothing beside the file. */
function checkComplete(file: string, reference: Buffer, why: string): void {
  expect(readFileSync(file).equals(reference), `${why}: the finished file differs from a clean export`).toBe(true);
  expect(readdirSync(join(file, '..')).filter((f) => f.includes('.svc-')), `${why}: left beside the file`).toEqual([]);
}

async function trial(random: Random, concurrency: number, signal: Signal): Promise<void> {
  tally.trials++;
  const format = random.pick(FORMATS);
  const pageSize = random.int(60, 300);
  const reference = clean.get(format) as Buffer;
  const file = join(tempDir(), `nightly.${format}`);
  writeFileSync(file, 'previous\n');
  const args = ['accounts', 'export', '--format', format, '--page-size', String(pageSize), '--concurrency', String(concurrency), '--output-file', file, '--resume', '--quiet'];
  const pages = Math.ceil(total / pageSize);
  const checkpointEvery = random.pick([undefined, '1ms', '25ms']);
  const log = [`${REPLAY}`, `format ${format}, page size ${pageSize}, concurrency ${concurrency}, ${signal}, checkpoint every ${checkpointEvery ?? '1s'}`];
  const s = sandbox();
  s.sandbox.hooks.setFaultRate(FAULT_RATE, random.int(1, 2 ** 30));
  try {
    const stops = random.int(1, 3);
    for (let i = 0; i < stops; i++) {
      const at = random.int(1, pages + 1);
      const stall = signal !== 'SIGKILL' && random.chance(0.5);
      const o = await exportOnce(args, checkpointEvery, { at, signal, stall });
      log.push(`run ${i + 1}, stopped at page request ${at}${stall ? ' (stalled)' : ''}: exit ${o.code ?? o.signal} after ${o.exitMs ?? '-'} ms; ${o.stderr.trim().split('\n').at(-1) ?? ''}`);
      const why = log.join('\n');
      if (o.exitMs !== undefined) expect(o.exitMs, `${why}: too slow to stop`).toBeLessThan(EXIT_WITHIN_MS);
      if (o.code === 0) {
        // It finished before the signal came: it must be whole.
        tally.completedEarly++;
        checkComplete(file, reference, why);
        return;
      }
      if (o.code === 1 && o.exitMs === undefined) {
        // Before the signal came, the faults outlasted the retries of one page: exit 1, as documented, and the
        // same guarantees as a stop (the file untouched, the checkpoint a clean prefix), resumed below.
        expect(o.stderr, why).toMatch(/run the same command with --resume to continue|no record was written/);
        tally.gaveUpEarly++;
        checkStopped(file, reference, why);
        continue;
      }
      if (signal === 'SIGKILL') expect(o.signal, why).toBe('SIGKILL');
      else expect(o.code, why).toBe(130);
      checkStopped(file, reference, why);
    }
    let last = await exportOnce(args, checkpointEvery);
    // The faults go on: the last run too may outlast a page's retries (exit 1, as documented). Then, as a user
    // would, it is run again (a few times at most: each keeps what it fetched).
    for (let again = 0; again < 5 && last.code === 1 && /run the same command with --resume to continue|no record was written/.test(last.stderr); again++) {
      log.push(`final run gave up on the faults: ${last.stderr.trim().split('\n').at(-1) ?? ''}`);
      checkStopped(file, reference, log.join('\n'));
      tally.gaveUpEarly++;
      last = await exportOnce(args, checkpointEvery);
    }
    log.push(`final run: exit ${String(last.code ?? last.signal)}; ${last.stderr.trim()}`);
    expect(last.code, log.join('\n')).toBe(0);
    checkComplete(file, reference, log.join('\n'));
  } finally {
    s.sandbox.hooks.setFaultRate(0);
    s.sandbox.hooks.reset();
  }
}

describe(`export chaos: interrupted and resumed on a flaky sandbox (seed ${SEED})`, () => {
  for (const [ci, concurrency] of CONCURRENCY.entries()) {
    for (const [si, signal] of SIGNALS.entries()) {
      for (let t = 0; t < TRIALS; t++) {
        it(`concurrency ${concurrency}, ${signal}, trial ${t + 1} (seed ${SEED})`, async () => {
          // Each trial draws from its own stream, so one can be replayed alone (-t).
          await trial(createRandom(SEED + 1009 * ci + 9173 * si + 100_003 * t), concurrency, signal);
        }, 120_000);
      }
    }
  }
});
