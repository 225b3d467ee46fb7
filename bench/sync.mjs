// Sync benchmark: at 100k and 1M accounts (--accounts 100000,1000000), in the
// same run against one sandbox per size (a separate process, temporary data
// dir, seeded with that many accounts):
//   1. `svc accounts export --format csv --concurrency 4` of every account (every field);
//   2. `svc accounts sync --into copy.sqlite --concurrency 4` into a new file (the same records, every field);
//      and `svc accounts watch --once --cursor-file F`, a watch's first run: the snapshot of every record;
//   3. 1% of the accounts updated through the service (PATCH /accounts/ID of every
//      100th ID, 32 at a time: each sets lastmodified, as any change does), then
//      `svc accounts sync` into that copy: the changed records, the filter
//      leavers' ID pass and the IDs-only reconcile pass (the default: every run).
// Whole processes are timed, start-up included, medians of --rounds (interleaved
// export / first sync); the time the sync itself reports (its -o json `seconds`,
// without process start-up) is shown beside; peak RSS is each process's own high-water mark (VmHWM,
// written at exit by bench/peak-rss.cjs, preloaded).
// Targets: first sync <= 1.3x the export; incremental <= 5% of the first sync;
// peak RSS of the first sync flat from the smallest size to the largest (<= +15 MB).
//
//   npm run bench:sync                                   # 100000 and 1000000 accounts, 3 rounds
//   node bench/sync.mjs --accounts 100000,300000 --rounds 3 --check   # exit 1 when a target is missed
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, fsyncSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const args = process.argv.slice(2);
const value = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const sizes = String(value('--accounts', '100000,1000000')).split(',').map(Number);
const rounds = Number(value('--rounds', 3));
const check = args.includes('--check');
const CONCURRENCY = '4';

if (!existsSync(`${root}dist/svc.cjs`)) {
  console.error('bench: dist/svc.cjs is missing; run `npm run build` first');
  process.exit(2);
}

const temp = mkdtempSync(join(tmpdir(), 'svc-bench-sync-'));
const env = { ...process.env, SVC_CONFIG_DIR: join(temp, 'config'), NO_COLOR: '1' };
for (const name of ['SVC_URL', 'SVC_TOKEN', 'SVC_TOKEN_FILE', 'SVC_PROFILE', 'HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) delete env[name];
const svc = (argv, input, extra = {}) => spawnSync(process.execPath, ['bin/svc.js', ...argv], { cwd: root, env: { ...env, ...extra }, input, encoding: 'utf8' });

/** Reports each measured process's peak RSS at its exit (CommonJS: see the file for why). */
const RSS = join(root, 'bench', 'peak-rss.cjs');

/** Seeds the data dir in a foreground sandbox (no start-up time limit: a million accounts take a while), then stops it. */
async function seed(accounts, dataDir) {
  const child = spawn(process.execPath, ['bin/svc.js', 'sandbox', 'start', '--foreground', '--port', '0', '--data-dir', dataDir, '--seed-accounts', String(accounts)], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise((resolve, reject) => {
    const look = (d) => {
      out += d;
      if (/listening/.test(out)) resolve();
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.on('close', (code) => reject(new Error(`the seeding sandbox exited ${code}: ${out}`)));
  });
  const closed = new Promise((r) => child.once('close', r));
  child.kill('SIGTERM');
  await closed;
}

function start(accounts, dataDir) {
  const t0 = performance.now();
  const started = svc(['sandbox', 'start', '--port', '0', '--data-dir', dataDir, '--seed-accounts', String(accounts), '-o', 'json']);
  if (started.status !== 0) throw new Error(`svc sandbox start failed: ${started.stderr}`);
  const sandbox = JSON.parse(started.stdout);
  const profile = `bench${accounts}`;
  const added = svc(['profile', 'add', profile, '--url', sandbox.instanceUrl]);
  if (added.status !== 0) throw new Error(`svc profile add failed: ${added.stderr}`);
  const login = svc(['login', '--profile', profile, '--user', sandbox.user, '--password-stdin', '--insecure-storage'], sandbox.password, { SVC_APPSECRET: sandbox.appsecret });
  if (login.status !== 0) throw new Error(`svc login failed: ${login.stderr}`);
  const token = svc(['auth', 'token', '--profile', profile]).stdout.trim();
  if (!token) throw new Error('svc auth token printed nothing');
  console.log(`sandbox with ${accounts.toLocaleString('en-US')} accounts ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { url: sandbox.instanceUrl, token, profile };
}

/** One svc process through the RSS reporter: wall seconds, peak RSS (MB), stdout (read and dropped with `drop`). */
async function timed(argv, extraEnv, drop = false) {
  const rssFile = join(temp, 'rss');
  rmSync(rssFile, { force: true });
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--require', RSS, 'bin/svc.js', ...argv], { cwd: root, env: { ...env, ...extraEnv, BENCH_RSS_FILE: rssFile }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => void (drop || (stdout += d)));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise((r) => child.on('close', r));
  const seconds = (performance.now() - t0) / 1000;
  if (code !== 0) throw new Error(`svc ${argv.join(' ')} exited ${code}: ${stderr}`);
  return { seconds, mb: Number(readFileSync(rssFile, 'utf8')) / 1024, stdout };
}

/** Updates every 100th account through the service (PATCH, 32 at a time); answers how many. */
async function changeOnePercent(sb, accounts) {
  const ids = [];
  // Every 100th of the IDs the service has, spread over the whole range.
  const file = join(temp, 'ids.csv');
  const list = svc(['accounts', 'export', '--profile', sb.profile, '--fields', 'ID', '--format', 'csv', '--no-header', '--concurrency', '4', '--output-file', file, '--quiet'], undefined, { SVC_TOKEN: sb.token });
  if (list.status !== 0) throw new Error(`listing IDs failed: ${list.stderr}`);
  const all = readFileSync(file, 'utf8').trim().split('\n').map(Number);
  rmSync(file, { force: true });
  for (let i = 0; i < all.length; i += 100) ids.push(all[i]);
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++];
      const res = await fetch(`${sb.url}/api/v1/accounts/${id}`, { method: 'PATCH', headers: { authorization: `Bearer ${sb.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ description: `changed by the bench ${Date.now()}` }) });
      if (!res.ok) throw new Error(`PATCH ${id}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 32 }, worker));
  console.log(`  updated ${ids.length.toLocaleString('en-US')} of ${all.length.toLocaleString('en-US')} accounts (1%) through PATCH in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return ids.length;
}

/** Writes a file's pages to disk. */
function durable(file) {
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const results = [];
try {
  for (const accounts of sizes) {
    const dataDir = join(temp, `data-${accounts}`);
    const t0 = performance.now();
    await seed(accounts, dataDir);
    console.log(`seeded ${accounts.toLocaleString('en-US')} accounts in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const sb = start(accounts, dataDir);
    const auth = ['--profile', sb.profile];
    const extra = { SVC_TOKEN: sb.token };
    try {
      const exports = [];
      const firsts = [];
      const incrementals = [];
      const watches = [];
      let base = '';
      let summary;
      for (let r = 0; r < rounds + 1; r++) {
        const csv = join(temp, `e-${accounts}.csv`);
        const copy = join(temp, `c-${accounts}-${r}.sqlite`);
        const exportRun = () => timed(['accounts', 'export', ...auth, '--format', 'csv', '--concurrency', CONCURRENCY, '--output-file', csv, '--quiet'], extra);
        const syncRun = () => timed(['accounts', 'sync', ...auth, '--into', copy, '--concurrency', CONCURRENCY, '--quiet', '-o', 'json'], extra);
        // Round 0 warms the caches; the order alternates.
        const [e, s] = r % 2 ? [await exportRun(), await syncRun()] : await syncRun().then(async (s1) => [await exportRun(), s1]);
        rmSync(csv, { force: true });
        // A watch's first run: the snapshot of every record, as NDJSON lines read from a pipe.
        const cursor = join(temp, `w-${accounts}.cursor`);
        const w = await timed(['accounts', 'watch', ...auth, '--once', '--cursor-file', cursor], extra, true);
        rmSync(cursor, { force: true });
        if (r > 0) {
          exports.push(e);
          firsts.push(s);
          watches.push(w);
        }
        const got = JSON.parse(s.stdout);
        s.inSvc = got.seconds;
        if (got.inserted < accounts) throw new Error(`the first sync copied ${got.inserted} records, fewer than ${accounts}`);
        if (base) rmSync(base, { force: true });
        base = copy;
        summary = got;
      }
      console.log(`  first sync: ${summary.inserted.toLocaleString('en-US')} records, ${summary.pages} requests`);
      const changed = await changeOnePercent(sb, accounts);
      for (let r = 0; r < rounds; r++) {
        // Each round from a copy of the same first sync: the same changes to find.
        const copy = join(temp, `i-${accounts}.sqlite`);
        copyFileSync(base, copy);
        for (const ext of ['-wal', '-shm']) if (existsSync(base + ext)) copyFileSync(base + ext, copy + ext);
        // On disk before the run, as the copy a cron run finds is (the last run's checkpoint synced it): a fresh
        // copy's pages would still be in the page cache, and the run's first fsync would write them all out.
        for (const ext of ['', '-wal']) if (existsSync(copy + ext)) durable(copy + ext);
        const run = await timed(['accounts', 'sync', ...auth, '--into', copy, '--concurrency', CONCURRENCY, '--quiet', '-o', 'json'], extra);
        const got = JSON.parse(run.stdout);
        if (got.updated < changed) throw new Error(`the incremental sync updated ${got.updated}, fewer than the ${changed} changed`);
        run.summary = got;
        run.inSvc = got.seconds;
        incrementals.push(run);
        for (const ext of ['', '-wal', '-shm']) rmSync(copy + ext, { force: true });
      }
      const inc = incrementals[0].summary;
      console.log(`  incremental: updated ${inc.updated}, inserted ${inc.inserted}, deleted ${inc.deleted}, ${inc.pages} requests; runs ${incrementals.map((x) => `${x.seconds.toFixed(2)} s (${x.inSvc.toFixed(2)} in svc)`).join(', ')}`);
      results.push({ accounts, exports, firsts, incrementals, watches });
    } finally {
      svc(['sandbox', 'stop', '--data-dir', dataDir]);
    }
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}

const fmt = (x, d = 2) => x.toFixed(d);
console.log(`\nsvc accounts sync into SQLite vs export --format csv, every field, --concurrency ${CONCURRENCY}, ${rounds} rounds (medians), node ${process.version}`);
console.log(`${'accounts'.padStart(10)} ${'export s'.padStart(9)} ${'first sync s'.padStart(13)} ${'sync/export'.padStart(12)} ${'incr. s'.padStart(8)} ${'incr/first'.padStart(11)} ${'export MB'.padStart(10)} ${'sync MB'.padStart(8)} ${'incr MB'.padStart(8)}  ${'in svc: first / incr. s (share)'}`);
let ok = true;
for (const r of results) {
  const e = median(r.exports.map((x) => x.seconds));
  const f = median(r.firsts.map((x) => x.seconds));
  const i = median(r.incrementals.map((x) => x.seconds));
  r.ratio = f / e;
  r.incShare = i / f;
  r.syncMb = median(r.firsts.map((x) => x.mb));
  console.log(
    `${r.accounts.toLocaleString('en-US').padStart(10)} ${fmt(e).padStart(9)} ${fmt(f).padStart(13)} ${`${fmt(r.ratio)}x`.padStart(12)} ${fmt(i).padStart(8)} ${`${fmt(r.incShare * 100, 1)}%`.padStart(11)} ${fmt(median(r.exports.map((x) => x.mb)), 0).padStart(10)} ${fmt(r.syncMb, 0).padStart(8)} ${fmt(median(r.incrementals.map((x) => x.mb)), 0).padStart(8)}  ${fmt(median(r.firsts.map((x) => x.inSvc)))} / ${fmt(median(r.incrementals.map((x) => x.inSvc)))} (${fmt((median(r.incrementals.map((x) => x.inSvc)) / median(r.firsts.map((x) => x.inSvc))) * 100, 1)}%)`,
  );
  ok &&= r.ratio <= 1.3 && r.incShare <= 0.05;
}
const growth = results.length > 1 ? results.at(-1).syncMb - results[0].syncMb : 0;
console.log(`targets: first sync <= 1.3x export: ${results.map((r) => `${fmt(r.ratio)}x`).join(', ')}; incremental <= 5% of first: ${results.map((r) => `${fmt(r.incShare * 100, 1)}%`).join(', ')}; sync peak RSS growth ${results[0]?.accounts} -> ${results.at(-1)?.accounts}: ${growth >= 0 ? '+' : ''}${fmt(growth, 0)} MB (<= 15)`);
ok &&= growth <= 15;
console.log(`\nsvc accounts watch --once, its first run (the snapshot of every record, every field, NDJSON to a pipe), same rounds`);
console.log(`${'accounts'.padStart(10)} ${'watch s'.padStart(8)} ${'watch/export'.padStart(13)} ${'watch MB'.padStart(9)} ${'export MB'.padStart(10)}`);
for (const r of results) {
  const w = median(r.watches.map((x) => x.seconds));
  r.watchMb = median(r.watches.map((x) => x.mb));
  console.log(`${r.accounts.toLocaleString('en-US').padStart(10)} ${fmt(w).padStart(8)} ${`${fmt(w / median(r.exports.map((x) => x.seconds)))}x`.padStart(13)} ${fmt(r.watchMb, 0).padStart(9)} ${fmt(median(r.exports.map((x) => x.mb)), 0).padStart(10)}`);
}
if (results.length > 1) console.log(`watch snapshot peak RSS growth ${results[0].accounts} -> ${results.at(-1).accounts}: ${fmt(results.at(-1).watchMb - results[0].watchMb, 0)} MB`);
console.log(ok ? 'all targets met' : 'a target was MISSED');
if (check && !ok) process.exit(1);
