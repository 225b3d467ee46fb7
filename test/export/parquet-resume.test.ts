/**
 * Parquet exports stopped and resumed on a flaky sandbox: the built svc
 * exports 1,500 tricky accounts as Parquet (row groups of 100 records, so a
 * run writes many) from a sandbox failing 15% of requests at random, at
 * concurrency 1, 2 and 4, and is stopped by SIGKILL, SIGINT or SIGTERM when the sandbox
 * receives its n-th page request (seeded), once or twice, then resumed.
 * Properties:
 * - a stopped run leaves the target untouched, and its checkpoint describes
 *   complete row groups only: rows a whole number of groups, one metadata
 *   entry a group, and the partial file's first `bytes` bytes exactly the
 *   clean export's first bytes;
 * - the run that finishes writes the clean export's bytes (row groups end at
 *   the same records whatever the pages were), which DuckDB reads as the same
 *   data, and leaves nothing beside the file.
 *
 * Replay a failure: SVC_CHAOS_SEED=<seed> npx vitest run test/export/parquet-resume.test.ts
 * (the seed is in every test's name). Needs `npm run build`.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRandom, type Random } from '../../src/util/random.js';
import { sandboxCli, tempConfigDir } from '../helpers/cli.js';
import { onRequest, seedTrickyAccounts, tempDir } from './support.js';

const SEED = process.env.SVC_CHAOS_SEED ? Number(process.env.SVC_CHAOS_SEED) : Math.floor(Math.random() * 2 ** 31);
const REPLAY = `replay: SVC_CHAOS_SEED=${SEED} npx vitest run test/export/parquet-resume.test.ts`;
const ACCOUNTS = 1500;
const GROUP = 100;
const FAULT_RATE = 0.15;
const PAGE_SIZE = 120;
const ENV = { SVC_PARQUET_ROW_GROUP: String(GROUP) };

const { sandbox, run } = sandboxCli();
let reference = Buffer.alloc(0);
/** The clean export with --compression none (the trials use one or the other). */
let uncompressed = Buffer.alloc(0);
let referenceFile = '';
let total = 0;

beforeAll(async () => {
  seedTrickyAccounts(sandbox(), ACCOUNTS);
  total = Number(JSON.parse((await run(['accounts', 'count', '-o', 'json'])).stdout).count);
  referenceFile = join(tempDir(), 'clean.parquet');
  const r = await run(['accounts', 'export', '--page-size', String(PAGE_SIZE), '--output', referenceFile], { env: ENV });
  expect(r.code, r.stderr).toBe(0);
  reference = readFileSync(referenceFile);
  const none = join(tempDir(), 'clean-none.parquet');
  const u = await run(['accounts', 'export', '--page-size', String(PAGE_SIZE), '--compression', 'none', '--output', none], { env: ENV });
  expect(u.code, u.stderr).toBe(0);
  uncompressed = readFileSync(none);
}, 60_000);

type Signal = 'SIGKILL' | 'SIGINT' | 'SIGTERM';

/** What the trials exercised, printed at the end (so a run shows resumes really happened). */
const tally = { stops: 0, resumedGroups: 0, finishedEarly: 0 };
afterAll(() => {
  console.log(`parquet resume: seed ${SEED}; ${tally.stops} stops, ${tally.resumedGroups} row groups kept by checkpoints and resumed after, ${tally.finishedEarly} runs finished before their signal`);
});

/** Runs the built svc once; with `stop`, sends its signal when the sandbox records its stop.at-th page request. */
async function exportOnce(args: readonly string[], stop?: { at: number; signal: Signal }): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const s = sandbox();
  const env = { ...process.env, ...ENV, SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1', SVC_CHECKPOINT_EVERY: '1ms' };
  const child = spawn(process.execPath, ['bin/svc.js', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const unhook = stop ? onRequest(s, '/api/v1/accounts', (n) => void (n === stop.at && child.kill(stop.signal))) : () => undefined;
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 50_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) => child.on('close', (c, sig) => r([c, sig])));
  clearTimeout(watchdog);
  unhook();
  return { code, signal, stderr };
}

interface SavedCheckpoint {
  readonly bytes: number;
  readonly rows: number;
  readonly range: { readonly last: number };
  readonly parquet: { readonly rowGroups: unknown[]; readonly rowGroupRows: number };
}

/** What a stopped run must leave: the old file, and a checkpoint of whole row groups, a clean prefix of the partial file. */
function checkStopped(file: string, why: string, reference: Buffer): void {
  expect(readFileSync(file, 'utf8'), `${why}: the target changed`).toBe('previous\n');
  tally.stops++;
  const ckPath = `${file}.svc-checkpoint.json`;
  if (!existsSync(ckPath)) return;
  const ck = JSON.parse(readFileSync(ckPath, 'utf8')) as SavedCheckpoint;
  expect(ck.parquet.rowGroupRows, why).toBe(GROUP);
  expect(ck.rows % GROUP, `${why}: the checkpoint counts part of a row group`).toBe(0);
  expect(ck.parquet.rowGroups.length, `${why}: one metadata entry a row group`).toBe(ck.rows / GROUP);
  const partial = readFileSync(`${file}.svc-partial`);
  expect(partial.length, `${why}: the partial file is shorter than its checkpoint`).toBeGreaterThanOrEqual(ck.bytes);
  expect(partial.subarray(0, ck.bytes).equals(reference.subarray(0, ck.bytes)), `${why}: the checkpointed prefix differs from a clean export`).toBe(true);
  tally.resumedGroups += ck.parquet.rowGroups.length;
}

async function trial(random: Random, concurrency: number, signal: Signal): Promise<void> {
  const file = join(tempDir(), 'nightly.parquet');
  writeFileSync(file, 'previous\n');
  // GZIP pages (the default) or none, by the seed: both must resume to the clean bytes.
  const none = random.chance(0.5);
  const clean = none ? uncompressed : reference;
  const args = ['accounts', 'export', '--format', 'parquet', '--page-size', String(PAGE_SIZE), '--concurrency', String(concurrency), '--output-file', file, '--resume', '--quiet', ...(none ? ['--compression', 'none'] : [])];
  const pages = Math.ceil(total / PAGE_SIZE);
  const log = [REPLAY, `concurrency ${concurrency}, ${signal}, compression ${none ? 'none' : 'gzip'}`];
  const s = sandbox();
  s.sandbox.hooks.setFaultRate(FAULT_RATE, random.int(1, 2 ** 30));
  try {
    const stops = random.int(1, 2);
    for (let i = 0; i < stops; i++) {
      const at = random.int(2, pages);
      const o = await exportOnce(args, { at, signal });
      log.push(`run ${i + 1}, stopped at page request ${at}: exit ${o.code ?? o.signal}; ${o.stderr.trim().split('\n').at(-1) ?? ''}`);
      const why = log.join('\n');
      if (o.code === 0) {
        tally.finishedEarly++; // finished before the signal: checked below
        break;
      }
      if (o.code === 1) expect(o.stderr, why).toMatch(/run the same command with --resume to continue|no record was written/);
      else if (signal === 'SIGKILL') expect(o.signal, why).toBe('SIGKILL');
      else expect(o.code, why).toBe(130);
      checkStopped(file, why, clean);
    }
    if (readFileSync(file).equals(Buffer.from('previous\n'))) {
      let last = await exportOnce(args);
      // The faults go on: the last run too may outlast a page's retries (exit 1, as documented); then it is run
      // again, as a user would (a few times at most: each keeps what it fetched).
      for (let again = 0; again < 5 && last.code === 1 && /run the same command with --resume to continue|no record was written/.test(last.stderr); again++) {
        log.push(`final run gave up on the faults: ${last.stderr.trim().split('\n').at(-1) ?? ''}`);
        checkStopped(file, log.join('\n'), clean);
        last = await exportOnce(args);
      }
      log.push(`final run: exit ${String(last.code ?? last.signal)}; ${last.stderr.trim()}`);
      expect(last.code, log.join('\n')).toBe(0);
    }
    const why = log.join('\n');
    expect(readFileSync(file).equals(clean), `${why}: the finished file differs from a clean export`).toBe(true);
    expect(readdirSync(join(file, '..')).filter((f) => f.includes('.svc-')), `${why}: left beside the file`).toEqual([]);
  } finally {
    s.sandbox.hooks.setFaultRate(0);
    s.sandbox.hooks.reset();
  }
  // The same bytes are the same data; DuckDB says so once more, reading both.
  const db = await (await DuckDBInstance.create(':memory:')).connect();
  try {
    const q = (f: string): string => `SELECT * FROM read_parquet('${f.replace(/'/g, "''")}')`;
    const diff = await db.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM ((${q(file)} EXCEPT ALL ${q(referenceFile)}) UNION ALL (${q(referenceFile)} EXCEPT ALL ${q(file)}))`);
    expect(diff.getRowObjectsJson()).toEqual([{ n: 0 }]);
  } finally {
    db.closeSync();
  }
}

it('writes the same bytes to standard output (a file or pipe) as to --output', async () => {
  const s = sandbox();
  const out = join(tempDir(), 'stdout.parquet');
  const fd = openSync(out, 'w');
  const env = { ...process.env, ...ENV, SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' };
  const child = spawn(process.execPath, ['bin/svc.js', 'accounts', 'export', '--format', 'parquet', '--page-size', String(PAGE_SIZE)], { env, stdio: ['ignore', fd, 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  closeSync(fd);
  expect(code, stderr).toBe(0);
  expect(readFileSync(out).equals(reference)).toBe(true);
}, 60_000);

describe(`parquet export: stopped and resumed on a flaky sandbox (seed ${SEED})`, () => {
  // Every concurrency with SIGKILL, and with SIGINT or SIGTERM (the same clean stop; one of them, by the seed).
  const cases: [number, Signal][] = [1, 2, 4].flatMap((c, i): [number, Signal][] => [
    [c, 'SIGKILL'],
    [c, (SEED + i) % 2 === 0 ? 'SIGINT' : 'SIGTERM'],
  ]);
  for (const [i, [concurrency, signal]] of cases.entries()) {
    it(`concurrency ${concurrency}, ${signal} (seed ${SEED})`, async () => {
      await trial(createRandom(SEED + 7919 * i), concurrency, signal);
    }, 90_000);
  }
});
