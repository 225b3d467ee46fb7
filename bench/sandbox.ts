// Sandbox benchmark: seeds a sandbox with 100k accounts in a temporary data
// dir (a real file), then measures over keep-alive loopback connections
// (undici Pool): 1000-row query pages with a dotted field, and single-record
// GETs. The sandbox runs in a worker thread, so the load generator does not
// share its event loop. Stops by itself and removes the temporary dir.
//
//   npm run bench:sandbox
//   tsx bench/sandbox.ts --accounts 20000 --seconds 3 --concurrency 8
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { Pool } from 'undici';
import { table } from '../src/sandbox/schema.js';
import { closeBenchWorker, seedWithToken, startBenchWorker } from './worker-sandbox.js';

interface Ready {
  readonly origin: string;
  readonly token: string;
  readonly seedMs: number;
  readonly maxId: number;
  readonly customers: number;
}

/** Worker side: start and seed the sandbox, issue a token, serve until told to close. */
async function serve(dataDir: string, accounts: number): Promise<void> {
  const { sandbox, seedMs, token } = await seedWithToken(dataDir, accounts, 'bench');
  const t = table('demo', 'accounts');
  const maxId = sandbox.db.prepare(`SELECT max("ID") FROM ${t}`).pluck().get() as number;
  const customers = sandbox.db.prepare(`SELECT count(*) FROM ${t} WHERE type = 1`).pluck().get() as number;
  parentPort?.postMessage({ origin: sandbox.origin, token, seedMs, maxId, customers } satisfies Ready);
  parentPort?.once('message', () => {
    void sandbox.close().then(() => parentPort?.postMessage('closed'));
  });
}

interface Figures {
  readonly name: string;
  readonly inFlight: number;
  readonly requests: number;
  readonly errors: number;
  readonly perSecond: number;
  readonly median: number;
  readonly p95: number;
  readonly note: string;
}

type Call = () => { method: 'GET' | 'POST'; path: string; body?: string };

/** Runs `concurrency` request loops for `seconds`; latencies of answered requests only. */
async function measure(pool: Pool, token: string, name: string, call: Call, seconds: number, concurrency: number): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError = '';
  let bytes = 0;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const once = async (record: boolean): Promise<void> => {
    const c = call();
    const t0 = performance.now();
    const res = await pool.request({ method: c.method, path: c.path, headers, body: c.body });
    const text = await res.body.text();
    const ms = performance.now() - t0;
    if (!record) return;
    if (res.statusCode !== 200) {
      errors++;
      firstError ||= `${res.statusCode} ${text.slice(0, 120)}`;
      return;
    }
    bytes += text.length;
    latencies.push(ms);
  };
  for (let i = 0; i < concurrency; i++) await once(false); // warm up connections and statement caches
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline) await once(true);
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  const avgKb = latencies.length ? bytes / latencies.length / 1024 : 0;
  return {
    name,
    inFlight: concurrency,
    requests: latencies.length,
    errors,
    perSecond: latencies.length / elapsed,
    median: at(0.5),
    p95: at(0.95),
    note: errors ? `first error: ${firstError}` : `${avgKb.toFixed(1)} KiB/answer`,
  };
}

function printTable(rows: readonly Figures[]): void {
  const cols = ['measurement', 'in flight', 'requests', 'req/s', 'median ms', 'p95 ms', 'errors', ''];
  const cells = rows.map((r) => [r.name, String(r.inFlight), String(r.requests), r.perSecond.toFixed(0), r.median.toFixed(2), r.p95.toFixed(2), String(r.errors), r.note]);
  const widths = cols.map((c, i) => Math.max(c.length, ...cells.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[]): string => row.map((v, i) => (i === 0 || i === row.length - 1 ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0))).join('  ');
  console.log(line(cols).trimEnd());
  for (const row of cells) console.log(line(row).trimEnd());
}

const PAGE = 1000;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { accounts: { type: 'string', default: '100000' }, seconds: { type: 'string', default: '4' }, concurrency: { type: 'string', default: '8' } },
  });
  const accounts = Number(values.accounts);
  const seconds = Number(values.seconds);
  const concurrency = Number(values.concurrency);
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-sandbox-'));
  const worker = startBenchWorker(import.meta.url, { dataDir: dir, accounts });
  try {
    const ready = await new Promise<Ready>((resolve, reject) => {
      worker.once('message', (m: Ready) => resolve(m));
      worker.once('error', reject);
    });
    const dbMb = statSync(join(dir, 'sandbox.sqlite')).size / 1024 / 1024;
    console.log(`sandbox benchmark, node ${process.version}, ${seconds} s per measurement, keep-alive loopback, sandbox in a worker thread`);
    console.log(`start + seed ${accounts} accounts (with contacts and addresses): ${(ready.seedMs / 1000).toFixed(2)} s; database ${dbMb.toFixed(0)} MiB`);
    const pool = new Pool(ready.origin, { connections: concurrency, pipelining: 1, keepAliveTimeout: 30_000 });
    const figures: Figures[] = [];
    try {
      const pages = Math.max(1, Math.floor(ready.customers / PAGE));
      const page: Call = () => ({
        method: 'POST',
        path: '/demo/api/v1/accounts',
        body: JSON.stringify({ filter: { type: 1 }, fields: ['ID', 'lastname', 'contact.city'], limit: PAGE, offset: Math.floor(Math.random() * pages) * PAGE }),
      });
      const probe = await pool.request({ ...page(), headers: { authorization: `Bearer ${ready.token}`, 'content-type': 'application/json' } });
      const probeText = await probe.body.text();
      if (probe.statusCode === 200) {
        const rows = (JSON.parse(probeText) as unknown[]).length;
        // One in flight shows the server's own time; more in flight add queueing on its one thread.
        figures.push(await measure(pool, ready.token, `POST page of ${rows} rows, contact.city`, page, seconds, 1));
        figures.push(await measure(pool, ready.token, `POST page of ${rows} rows, contact.city`, page, seconds, concurrency));
      } else {
        console.log(`query page skipped: POST answers ${probe.statusCode} ${probeText.slice(0, 100)}`);
      }
      const get: Call = () => ({ method: 'GET', path: `/demo/api/v1/accounts/${1 + Math.floor(Math.random() * ready.maxId)}` });
      figures.push(await measure(pool, ready.token, 'GET one account', get, seconds, 1));
      figures.push(await measure(pool, ready.token, 'GET one account', get, seconds, concurrency));
    } finally {
      await pool.close();
    }
    printTable(figures);
    console.log('targets: 1000-row page median under 50 ms; single GETs above 2,000/s');
  } finally {
    await closeBenchWorker(worker);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMainThread) {
  await main();
} else {
  const data = workerData as { dataDir: string; accounts: number };
  await serve(data.dataDir, data.accounts);
}
