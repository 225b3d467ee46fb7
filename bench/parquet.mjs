// Parquet export against CSV export of the same records: at 100k accounts
// (--accounts N; run it again with --accounts 1000000), `svc accounts export
// --concurrency 4 --output f.parquet` (GZIP pages, the default, and again with
// --compression none) against the same with f.csv, every field. Whole processes are timed, start-up included, in interleaved rounds
// (the order alternating), against one sandbox started for the run (a
// separate process in the foreground, temporary data dir, --seed-accounts). Each client's peak
// RSS is its own high-water mark (Linux VmHWM, read at exit by a preloaded
// module, bench/peak-rss.cjs; see bench/fork-maxrss.mjs for why not getrusage). The Parquet file
// is checked with DuckDB: as many rows as the CSV file, the same IDs.
// Reports medians, the time ratio (target: parquet <= 1.2x csv) and the peaks.
//
//   npm run bench:parquet                                  # 100000 accounts, 5 rounds
//   node bench/parquet.mjs --accounts 1000000 --rounds 3   # the 1M figures
//   node bench/parquet.mjs --accounts 20000 --rounds 3 --check   # exit 1 when the target is missed
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const rounds = option('--rounds', 5);
const accounts = option('--accounts', 100_000);
const concurrency = option('--concurrency', 4);
const check = args.includes('--check');
const TARGET = 1.2;

if (!existsSync(`${root}dist/svc.cjs`)) {
  console.error('bench: dist/svc.cjs is missing; run `npm run build` first');
  process.exit(2);
}

const temp = mkdtempSync(join(tmpdir(), 'svc-bench-parquet-'));
const env = { ...process.env, SVC_CONFIG_DIR: join(temp, 'config'), NO_COLOR: '1' };
for (const name of ['SVC_URL', 'SVC_TOKEN', 'SVC_TOKEN_FILE', 'SVC_PROFILE', 'HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) delete env[name];
const svc = (argv, input, extra = {}) => spawnSync(process.execPath, ['bin/svc.js', ...argv], { cwd: root, env: { ...env, ...extra }, input, encoding: 'utf8' });

// The peak RSS of a client, written at its exit (KiB; CommonJS: see the file for why).
const reporter = join(root, 'bench', 'peak-rss.cjs');

// The sandbox in the foreground, as a child of the bench: seeding a million accounts outlasts `sandbox
// start`'s wait for a detached one. It prints its JSON once it answers.
let server;
async function start() {
  const t0 = performance.now();
  server = spawn(process.execPath, ['bin/svc.js', 'sandbox', 'start', '--foreground', '--port', '0', '--data-dir', join(temp, 'data'), '--seed-accounts', String(accounts), '-o', 'json'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  const sandbox = await new Promise((resolve, reject) => {
    server.stdout.on('data', (c) => {
      out += c;
      const end = out.indexOf('\n}');
      if (end >= 0) resolve(JSON.parse(out.slice(0, end + 2)));
    });
    server.on('exit', (code) => reject(new Error(`svc sandbox start exited ${code}`)));
  });
  const added = svc(['profile', 'add', 'bench', '--url', sandbox.instanceUrl]);
  if (added.status !== 0) throw new Error(`svc profile add failed: ${added.stderr}`);
  const login = svc(['login', '--profile', 'bench', '--user', sandbox.user, '--password-stdin', '--insecure-storage'], sandbox.password, { SVC_APPSECRET: sandbox.appsecret });
  if (login.status !== 0) throw new Error(`svc login failed: ${login.stderr}`);
  const token = svc(['auth', 'token', '--profile', 'bench']).stdout.trim();
  if (!token) throw new Error('svc auth token printed nothing');
  console.log(`sandbox with ${accounts.toLocaleString('en-US')} accounts ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { token };
}

let sb;
try {
  sb = await start();
} catch (err) {
  server?.kill('SIGINT');
  rmSync(temp, { recursive: true, force: true });
  throw err;
}

// CSV, Parquet as svc writes it by default (GZIP pages), and Parquet with --compression none.
const clients = [
  { format: 'csv', extra: [], tag: 'csv' },
  { format: 'parquet', extra: [], tag: 'parquet' },
  { format: 'parquet', extra: ['--compression', 'none'], tag: 'parquet-none' },
].map((c) => ({
  ...c,
  name: `svc accounts export --concurrency ${concurrency} -o f.${c.format}${c.extra.length ? ` ${c.extra.join(' ')}` : ''}`,
  file: join(temp, `accounts.${c.tag}.${c.format}`),
}));

function once(c) {
  const rssFile = join(temp, `${c.tag}.rss`);
  const argv = ['--require', reporter, 'bin/svc.js', 'accounts', 'export', '--profile', 'bench', '--concurrency', String(concurrency), '--output', c.file, ...c.extra];
  const t0 = performance.now();
  const r = spawnSync(process.execPath, argv, { cwd: root, env: { ...env, SVC_TOKEN: sb.token, BENCH_RSS_FILE: rssFile }, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${c.name} exited ${r.status}: ${r.stderr}`);
  return { ms, rssMb: Number(readFileSync(rssFile, 'utf8')) / 1024 };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** The Parquet file as DuckDB reads it: rows and the sum of IDs, against the CSV file's. */
async function verify() {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await (await DuckDBInstance.create(':memory:')).connect();
  const q = async (sql) => (await db.runAndReadAll(sql)).getRowObjectsJson()[0];
  const [csv, ...parquets] = clients.map((c) => c.file.replace(/'/g, "''"));
  const a = await q(`SELECT count(*)::VARCHAR AS n, sum(ID)::VARCHAR AS ids FROM read_csv('${csv}', header = true, all_varchar = false)`);
  for (const parquet of parquets) {
    const b = await q(`SELECT count(*)::VARCHAR AS n, sum(ID)::VARCHAR AS ids FROM read_parquet('${parquet}')`);
    if (a.n !== b.n || a.ids !== b.ids || Number(b.n) !== accounts) throw new Error(`the files differ: csv ${JSON.stringify(a)}, ${parquet} ${JSON.stringify(b)}, expected ${accounts} rows`);
  }
}

const runs = clients.map(() => []);
try {
  for (const c of clients) once(c); // warm the file cache and the sandbox's
  await verify();
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [2, 1, 0] : [0, 1, 2];
    for (const i of order) runs[i].push(once(clients[i]));
  }
} finally {
  const stopped = new Promise((resolve) => server.on('exit', resolve));
  server.kill('SIGINT');
  await stopped;
}

const sizes = clients.map((c) => statSync(c.file).size);
rmSync(temp, { recursive: true, force: true });
console.log(`export of ${accounts.toLocaleString('en-US')} accounts (every field), ${rounds} interleaved rounds, node ${process.version}`);
const width = Math.max(...clients.map((c) => c.name.length)) + 1;
console.log(`${'client'.padEnd(width)} ${'median s'.padStart(9)} ${'min s'.padStart(7)} ${'max s'.padStart(7)} ${'peak RSS MB'.padStart(12)} ${'file MB'.padStart(8)}`);
clients.forEach((c, i) => {
  const s = runs[i].map((x) => x.ms).sort((x, y) => x - y);
  const rss = Math.max(...runs[i].map((x) => x.rssMb));
  console.log(
    `${c.name.padEnd(width)} ${(median(s) / 1000).toFixed(2).padStart(9)} ${(s[0] / 1000).toFixed(2).padStart(7)} ${(s.at(-1) / 1000).toFixed(2).padStart(7)} ${rss.toFixed(0).padStart(12)} ${(sizes[i] / 2 ** 20).toFixed(1).padStart(8)}`,
  );
});
const ratio = median(runs[1].map((x) => x.ms)) / median(runs[0].map((x) => x.ms));
const ratioNone = median(runs[2].map((x) => x.ms)) / median(runs[0].map((x) => x.ms));
const ok = ratio <= TARGET && ratioNone <= TARGET;
console.log(`parquet / csv: ${ratio.toFixed(2)}x (GZIP pages, the default), ${ratioNone.toFixed(2)}x (--compression none)  (target <= ${TARGET.toFixed(2)}x: ${ok ? 'ok' : 'MISSED'})`);
if (check && !ok) process.exit(1);
