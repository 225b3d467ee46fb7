// Export benchmark: for each size (default 100k, then 1M accounts) seeds a
// sandbox in a worker thread (temporary data dir, a real file) and measures,
// in the same run, how fast every account reaches a file:
//   - svc export to CSV, default concurrency and --concurrency 4 (a spawned
//     `node bin/svc.js`);
//   - a baseline client doing the obvious thing: sequential offset pages of
//     1000 with plain undici requests, the JSON bodies written to a file;
//   - the sandbox's raw serving time for the same pages: its query handler
//     called in-process in the worker (keyset pages of 1000), each answer
//     encoded to the bytes the server sends (encodeBody, as send() does).
// Peak RSS of each spawned client is its VmHWM, written at exit by a preloaded
// module (bench/peak-rss.cjs, which says why not getrusage); its RSS is also sampled every 250 ms
// (Linux /proc), to tell whether it grows from the first half of a run to the
// second. Stops by itself, removes temp dirs.
//
//   npm run bench:export              # 100000,1000000, 3 rounds
//   tsx bench/export.ts --sizes 100000 --rounds 5 --run-timeout 120
import { spawn } from 'node:child_process';
import { closeSync, createReadStream, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, workerData, type Worker } from 'node:worker_threads';
import { findFamily } from '../src/catalogue/index.js';
import { sessionFromToken } from '../src/sandbox/auth/session.js';
import { runQuery } from '../src/sandbox/data/query/index.js';
import { encodeBody } from '../src/sandbox/http/respond.js';
import { closeBenchWorker, seedWithToken, startBenchWorker } from './worker-sandbox.js';

const PAGE = 1000;
const root = fileURLToPath(new URL('../', import.meta.url));

interface Ready {
  readonly instanceUrl: string;
  readonly token: string;
  readonly seedMs: number;
  readonly rows: number;
}

interface Raw {
  readonly ms: number;
  readonly rows: number;
}

/** Worker side: seed, answer `raw` with the in-process serving time of every keyset page, close on `close`. */
async function serve(dataDir: string, accounts: number): Promise<void> {
  const { sandbox, seedMs, ctx, token } = await seedWithToken(dataDir, accounts, 'bench-export');
  const family = findFamily('accounts');
  if (!family) throw new Error('the catalogue has no accounts');
  const session = sessionFromToken(ctx, token);
  if (!session) throw new Error('the bench token has no session');
  const count = (runQuery(ctx, session, family, { count: true }).json as { count: number }).count;
  parentPort?.postMessage({ instanceUrl: sandbox.instanceUrl('demo'), token, seedMs, rows: count } satisfies Ready);
  parentPort?.on('message', (m: string) => {
    if (m === 'close') void sandbox.close().then(() => parentPort?.postMessage('closed'));
    if (m !== 'raw') return;
    let rows = 0;
    let last = 0;
    const started = performance.now();
    for (;;) {
      const reply = runQuery(ctx, session, family, { filters: { ID: { '>': last } }, sort: ['+ID'], limit: PAGE });
      const page = reply.json as { ID: number }[];
      encodeBody(reply); // the body's bytes, as the server makes them for the socket: part of serving
      rows += page.length;
      last = page.at(-1)?.ID ?? last;
      if (page.length < PAGE) break;
    }
    parentPort?.postMessage({ ms: performance.now() - started, rows } satisfies Raw);
  });
}

/** Reports a client's peak RSS (KiB) to BENCH_RSS_FILE at its exit, preloaded (CommonJS: see the file for why). */
const RSS_REPORTER = fileURLToPath(new URL('./peak-rss.cjs', import.meta.url));

/** The baseline client: sequential offset pages with plain undici requests, JSON bodies to a file. */
const baselineClient = (undici: string): string => `import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { request } from ${JSON.stringify(undici)};
const [url, token, out, size] = process.argv.slice(2);
const file = createWriteStream(out);
const headers = { authorization: 'Bearer ' + token, 'content-type': 'application/json' };
for (let offset = 0; ; offset += Number(size)) {
  const res = await request(url, { method: 'POST', headers, body: JSON.stringify({ sort: ['+ID'], limit: Number(size), offset }) });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error('page at offset ' + offset + ': ' + res.statusCode + ' ' + text.slice(0, 200));
  if (!file.write(text + '\\n')) await once(file, 'drain');
  if (JSON.parse(text).length < Number(size)) break;
}
file.end();
await once(file, 'finish');
`;

interface Run {
  readonly name: string;
  readonly seconds: number;
  readonly rssMb: number;
  /** Highest RSS sampled in the second half of the run minus that of the first half (MB): growth during the export. */
  readonly lateGrowthMb: number;
  readonly bytes: number;
  readonly records: number;
  readonly note: string;
}

interface Client {
  readonly name: string;
  readonly argv: readonly string[];
  /** Where stdout goes: the output file (stand-in) or nowhere. */
  readonly stdoutToFile: boolean;
  readonly kind: 'csv' | 'json-pages';
  readonly note: string;
}

/** Records in the output: CSV rows after the header (newlines inside quotes do not count), or the elements of JSON pages, one page a line. */
async function countRecords(file: string, kind: Client['kind']): Promise<number> {
  if (kind === 'json-pages') {
    let n = 0;
    for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) if (line) n += (JSON.parse(line) as unknown[]).length;
    return n;
  }
  let n = 0;
  let quoted = false;
  for await (const chunk of createReadStream(file)) {
    for (const byte of chunk as Buffer) {
      if (byte === 34) quoted = !quoted;
      else if (byte === 10 && !quoted) n++;
    }
  }
  return Math.max(0, n - 1);
}

/** A process's resident set in MB now (Linux's /proc), or undefined. */
function rssOf(pid: number | undefined): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Highest RSS of the run's second half minus that of its first half; NaN without samples in both. */
function lateGrowth(samples: readonly { ms: number; mb: number }[], totalMs: number): number {
  const peak = (xs: readonly { mb: number }[]): number => Math.max(...xs.map((x) => x.mb));
  const first = samples.filter((x) => x.ms < totalMs / 2);
  const second = samples.filter((x) => x.ms >= totalMs / 2);
  return first.length && second.length ? peak(second) - peak(first) : Number.NaN;
}

/** Spawns one client through the RSS reporter, with a time limit; its wall time, peak RSS and output size. */
async function runClient(dir: string, c: Client, out: string, env: NodeJS.ProcessEnv, limitS: number): Promise<Run> {
  const rssFile = join(dir, 'rss');
  rmSync(rssFile, { force: true });
  const fd = c.stdoutToFile ? openSync(out, 'w') : 'ignore';
  const argv = ['--require', RSS_REPORTER, ...c.argv];
  const started = performance.now();
  const child = spawn(process.execPath, argv, { cwd: root, env: { ...env, BENCH_RSS_FILE: rssFile }, stdio: ['ignore', fd, 'pipe'], timeout: limitS * 1000 });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const samples: { ms: number; mb: number }[] = [];
  const sampler = setInterval(() => {
    const mb = rssOf(child.pid);
    if (mb !== undefined) samples.push({ ms: performance.now() - started, mb });
  }, 250);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (status) => resolve(status)));
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  if (typeof fd === 'number') closeSync(fd);
  const failed = code !== 0 ? `FAILED (exit ${code ?? `killed after ${limitS} s`}): ${stderr.trim().split('\n').at(-1) ?? ''}` : '';
  const rssKb = existsSync(rssFile) ? Number(readFileSync(rssFile, 'utf8')) : Number.NaN;
  const bytes = statSync(out, { throwIfNoEntry: false })?.size ?? 0;
  const records = bytes ? await countRecords(out, c.kind) : 0;
  rmSync(out, { force: true });
  return { name: c.name, seconds, rssMb: rssKb / 1024, lateGrowthMb: lateGrowth(samples, seconds * 1000), bytes, records, note: failed || c.note };
}

/** The svc clients: export to CSV at the default concurrency and with 4 requests at once. */
function svcClients(out: string): Client[] {
  const base = ['bin/svc.js', 'accounts', 'export', '--format', 'csv', '--output-file', out, '--quiet'];
  return [
    { name: 'svc export csv', argv: base, stdoutToFile: false, kind: 'csv', note: 'default concurrency (1)' },
    { name: 'svc export csv -c 4', argv: [...base, '--concurrency', '4'], stdoutToFile: false, kind: 'csv', note: '--concurrency 4' },
  ];
}

const ask = <T>(worker: Worker, message?: string): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    worker.once('message', (m: T) => resolve(m));
    worker.once('error', reject);
    if (message) worker.postMessage(message);
  });

/** One svc client's rounds, each with the raw serving time measured just before it. */
interface Rounds {
  readonly client: Client;
  readonly runs: { run: Run; rawMs: number }[];
}

interface Measured {
  readonly ready: Ready;
  readonly baseline: Run;
  readonly raws: number[];
  readonly svc: Rounds[];
}

/**
 * One size: seed; the baseline once (it is several times slower, so noise
 * does not move its verdict); then `rounds` rounds of [raw serving, svc run]
 * for each svc client, so every svc time is compared with a raw time
 * measured next to it (these machines' speed drifts by tens of percent).
 */
async function measureSize(size: number, limitS: number, rounds: number): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-export-'));
  mkdirSync(join(dir, 'data'));
  const worker = startBenchWorker(import.meta.url, { dataDir: join(dir, 'data'), accounts: size });
  try {
    const ready = await ask<Ready>(worker);
    writeFileSync(join(dir, 'baseline.mjs'), baselineClient(import.meta.resolve('undici')));
    const out = join(dir, 'out');
    const env = { ...process.env, SVC_URL: ready.instanceUrl, SVC_TOKEN: ready.token, SVC_CONFIG_DIR: join(dir, 'config'), NO_COLOR: '1' };
    const baseline = await runClient(dir, {
      name: 'baseline offset pages',
      argv: [join(dir, 'baseline.mjs'), `${ready.instanceUrl}/api/v1/accounts`, ready.token, out, String(PAGE)],
      stdoutToFile: false,
      kind: 'json-pages',
      note: 'sequential, offset, JSON bodies',
    }, out, env, limitS);
    const svc: Rounds[] = svcClients(out).map((client) => ({ client, runs: [] }));
    const raws: number[] = [];
    for (let r = 0; r < rounds; r++) {
      for (const c of svc) {
        const raw = await ask<Raw>(worker, 'raw');
        raws.push(raw.ms);
        c.runs.push({ run: await runClient(dir, c.client, out, env, limitS), rawMs: raw.ms });
      }
    }
    return { ready, baseline, raws, svc };
  } finally {
    await closeBenchWorker(worker);
    rmSync(dir, { recursive: true, force: true });
  }
}

function printTable(header: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]): string => r.map((v, i) => (i === 0 || i === r.length - 1 ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0))).join('  ');
  console.log(line(header).trimEnd());
  for (const r of rows) console.log(line(r).trimEnd());
}

const signed = (mb: number): string => (Number.isNaN(mb) ? '?' : `${mb >= 0 ? '+' : ''}${mb.toFixed(0)}`);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

/**
 * A client's figures over its rounds: median time, median peak RSS (a single
 * run now and then peaks 10-20 MB higher for a moment, at either size), the
 * median growth from the first half of a run to the second, and the median of
 * (time / the raw time next to it).
 */
function summary(c: Rounds): { seconds: number; rssMb: number; lateGrowthMb: number; vsRaw: number; failed?: string; runs: Run[] } {
  const runs = c.runs.map((r) => r.run);
  const failed = runs.find((r) => r.note !== c.client.note)?.note;
  return {
    seconds: median(runs.map((r) => r.seconds)),
    rssMb: median(runs.map((r) => r.rssMb)),
    lateGrowthMb: median(runs.map((r) => r.lateGrowthMb)),
    vsRaw: median(c.runs.map((r) => r.run.seconds / (r.rawMs / 1000))),
    ...(failed ? { failed } : {}),
    runs,
  };
}

function report(size: number, m: Measured): void {
  const { ready, baseline } = m;
  console.log(`\n${size.toLocaleString('en-US')} accounts seeded (${ready.rows.toLocaleString('en-US')} visible) in ${(ready.seedMs / 1000).toFixed(1)} s; ${m.svc[0]?.runs.length ?? 0} rounds of [raw, svc run] per client, medians`);
  const rawS = median(m.raws) / 1000;
  const rows = [[baseline.name, baseline.seconds.toFixed(2), (ready.rows / baseline.seconds).toFixed(0), baseline.rssMb.toFixed(0), (baseline.bytes / 2 ** 20).toFixed(0), String(baseline.records), '1.00x', `${(baseline.seconds / rawS).toFixed(2)}x`, baseline.note]];
  for (const c of m.svc) {
    const s = summary(c);
    const last = s.runs.at(-1);
    rows.push([c.client.name, s.seconds.toFixed(2), (ready.rows / s.seconds).toFixed(0), s.rssMb.toFixed(0), ((last?.bytes ?? 0) / 2 ** 20).toFixed(0), String(last?.records ?? 0),
      `${(baseline.seconds / s.seconds).toFixed(2)}x`, `${s.vsRaw.toFixed(2)}x`, s.failed ?? `${c.client.note}; runs ${s.runs.map((r) => r.seconds.toFixed(2)).join(' / ')} s, ${s.runs.map((r) => r.rssMb.toFixed(0)).join(' / ')} MB peak, ${s.runs.map((r) => signed(r.lateGrowthMb)).join(' / ')} MB 2nd half over 1st`]);
  }
  rows.push(['raw serving (in-process)', rawS.toFixed(2), (ready.rows / rawS).toFixed(0), '-', '-', String(ready.rows), '', '1.00x', `keyset pages of 1000, handler + body bytes; runs ${m.raws.map((r) => (r / 1000).toFixed(2)).join(' / ')} s`]);
  printTable(['measurement', 'seconds', 'rows/s', 'peak RSS MB', 'out MiB', 'records', 'speed vs baseline', 'time vs raw', ''], rows);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { sizes: { type: 'string', default: '100000,1000000' }, rounds: { type: 'string', default: '3' }, 'run-timeout': { type: 'string', default: '600' } } });
  const sizes = (values.sizes ?? '').split(',').map(Number).filter((n) => n > 0);
  const limitS = Number(values['run-timeout']);
  const rounds = Math.max(1, Number(values.rounds));
  console.log(`export benchmark, node ${process.version}, sandbox in a worker thread, loopback HTTP, each client a spawned node process`);
  const bySize = new Map<number, Measured>();
  for (const size of sizes) {
    const m = await measureSize(size, limitS, rounds);
    report(size, m);
    bySize.set(size, m);
  }
  verdicts(bySize);
}

/** The targets, judged on the largest size (speed) and across sizes (memory): ok or MISSED. */
function verdicts(bySize: ReadonlyMap<number, Measured>): void {
  const sizes = [...bySize.keys()].sort((a, b) => a - b);
  const largest = bySize.get(sizes.at(-1) ?? 0);
  const smallest = bySize.get(sizes[0] ?? 0);
  if (!largest || !smallest) return;
  const fastest = largest.svc.map((c) => ({ c, s: summary(c) })).reduce((a, b) => (b.s.seconds < a.s.seconds ? b : a));
  const mark = (ok: boolean): string => (ok ? 'ok' : 'MISSED');
  const speed = largest.baseline.seconds / fastest.s.seconds;
  const raw = fastest.s.vsRaw;
  const peakOf = (m: Measured): number => Math.max(...m.svc.map((c) => summary(c).rssMb));
  const peak = Math.max(...[...bySize.values()].flatMap((m) => m.svc.flatMap((c) => c.runs.map((r) => r.run.rssMb))));
  const grow = peakOf(largest) - peakOf(smallest);
  const late = Math.max(...largest.svc.map((c) => summary(c).lateGrowthMb));
  const at = `${(sizes.at(-1) ?? 0).toLocaleString('en-US')} rows`;
  console.log(`\ntargets (judged at ${at}, fastest svc client: ${fastest.c.client.name}):`);
  console.log(`  >= 1.5x baseline rows/s:      ${speed.toFixed(2)}x  ${mark(speed >= 1.5)}`);
  console.log(`  <= 1.3x raw serving time:     ${raw.toFixed(2)}x  ${mark(raw <= 1.3)}  (median over rounds of time / adjacent raw time)`);
  console.log(`  peak RSS < 150 MB:            ${peak.toFixed(0)} MB  ${mark(peak < 150)}  (highest of all svc runs)`);
  console.log(`  RSS growth smallest→largest:  ${signed(grow)} MB  ${sizes.length < 2 ? '(one size only)' : mark(grow <= 15)}  (median peaks)`);
  console.log(`  RSS growth within a run:      ${signed(late)} MB  ${mark(late <= 5)}  (largest size, 2nd half peak over 1st, median)`);
}

if (isMainThread) {
  await main();
} else {
  const data = workerData as { dataDir: string; accounts: number };
  await serve(data.dataDir, data.accounts);
}
