// Import benchmark: `svc accounts import` of N account rows (default 5,000) at
// --concurrency 1 and 4 against a local sandbox (a separate process, temporary
// data dir), whole processes timed (start-up included), with --results to a
// file as a cron job would. Two cases per concurrency, interleaved round by
// round: new rows (every row a create), and the same rows again with --key
// customernum and one field changed (a lookup per 500 rows, then every row an
// update). Each round imports rows of its own (a fresh key prefix). Beside
// them, the floor: the same creates sent by a bare node:http client (keep-alive,
// no checks, no results file) one at a time and 4 at a time, in this process.
// Reports rows per second, medians of the rounds.
//
//   npm run bench:import                                   # 5000 rows, 3 rounds
//   node bench/import.mjs --rows 20000 --rounds 5
import { spawnSync } from 'node:child_process';
import { Agent, request } from 'node:http';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const rows = option('--rows', 5000);
const rounds = option('--rounds', 3);
const CONCURRENCY = [1, 4];

if (!existsSync(`${root}dist/svc.cjs`)) {
  console.error('bench: dist/svc.cjs is missing; run `npm run build` first');
  process.exit(2);
}

const temp = mkdtempSync(join(tmpdir(), 'svc-bench-import-'));
const env = { ...process.env, SVC_CONFIG_DIR: join(temp, 'config'), NO_COLOR: '1' };
for (const name of ['SVC_URL', 'SVC_TOKEN', 'SVC_TOKEN_FILE', 'SVC_PROFILE', 'HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) delete env[name];
const svc = (argv, input, extra = {}) => spawnSync(process.execPath, ['bin/svc.js', ...argv], { cwd: root, env: { ...env, ...extra }, input, encoding: 'utf8' });

function start() {
  const started = svc(['sandbox', 'start', '--port', '0', '--data-dir', join(temp, 'data'), '-o', 'json']);
  if (started.status !== 0) throw new Error(`svc sandbox start failed: ${started.stderr}`);
  const sandbox = JSON.parse(started.stdout);
  // By URL, not by the profile `sandbox start` adds (whose name depends on the data dir).
  const login = svc(['login', '--url', sandbox.instanceUrl, '--user', sandbox.user, '--password-stdin', '--insecure-storage'], sandbox.password, { SVC_APPSECRET: sandbox.appsecret });
  if (login.status !== 0) throw new Error(`svc login failed: ${login.stderr}`);
  const token = svc(['auth', 'token', '--url', sandbox.instanceUrl]).stdout.trim();
  if (!token) throw new Error('svc auth token printed nothing');
  return { url: sandbox.instanceUrl, token };
}

/** A CSV of `rows` accounts whose customernum starts with `prefix`; `variant` changes the description. */
function csvFile(prefix, variant) {
  const lines = ['lastname,firstname,currency,type,customernum,description'];
  for (let i = 0; i < rows; i++) lines.push(`Bench ${prefix} ${i},Row,EUR,CUSTOMER,${prefix}-${i},"${variant} ${i}, quoted"`);
  const file = join(temp, `${prefix}-${variant}.csv`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

function importOnce(file, concurrency, key, sb) {
  const argv = ['accounts', 'import', '--from', file, '--results', `${file}.results`, '--concurrency', String(concurrency), ...(key ? ['--key', 'customernum'] : [])];
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['bin/svc.js', ...argv], { cwd: root, env: { ...env, SVC_URL: sb.url, SVC_TOKEN: sb.token }, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`svc ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  const expected = key ? `0 created, ${rows.toLocaleString('en-US')} updated` : `${rows.toLocaleString('en-US')} created, 0 updated`;
  if (!r.stderr.includes(expected)) throw new Error(`unexpected summary: ${r.stderr}`);
  return ms;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** The floor: `rows` creates of the same bodies over keep-alive node:http, `c` in flight, no checks and no results file. */
async function rawCreates(prefix, c, sb) {
  const agent = new Agent({ keepAlive: true, maxSockets: c });
  const url = new URL(`${sb.url}/api/v1/accounts`);
  const put = (i) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ lastname: `Bench ${prefix} ${i}`, firstname: 'Row', currency: 'EUR', type: 1, customernum: `${prefix}-${i}`, description: `a ${i}, quoted` });
      const req = request(url, { method: 'PUT', agent, headers: { authorization: `Bearer ${sb.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 201 ? resolve() : reject(new Error(`PUT answered ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(body);
    });
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: c }, async () => {
    while (next < rows) await put(next++);
  }));
  const ms = performance.now() - t0;
  agent.destroy();
  return ms;
}

const cases = CONCURRENCY.flatMap((c) => [
  { name: `floor: bare node:http creates, ${c} in flight`, c, raw: true, times: [] },
  { name: `new rows (creates), --concurrency ${c}`, c, key: false, times: [] },
  { name: `--key customernum (updates), --concurrency ${c}`, c, key: true, times: [] },
]);
let sb;
try {
  sb = start();
  importOnce(csvFile('warm', 'a'), 4, false, sb); // warm the sandbox and the file cache
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...CONCURRENCY].reverse() : CONCURRENCY;
    for (const c of order) {
      const prefix = `r${r}c${c}`;
      const [raw, create, upsert] = cases.filter((x) => x.c === c);
      raw.times.push(await rawCreates(`${prefix}raw`, c, sb));
      create.times.push(importOnce(csvFile(prefix, 'a'), c, false, sb));
      upsert.times.push(importOnce(csvFile(prefix, 'b'), c, true, sb));
    }
  }
} finally {
  svc(['sandbox', 'stop', '--data-dir', join(temp, 'data')]);
  rmSync(temp, { recursive: true, force: true });
}

console.log(`svc accounts import of ${rows.toLocaleString('en-US')} account rows (CSV, --results to a file), whole processes, ${rounds} rounds, node ${process.version}`);
console.log(`${'case'.padEnd(48)} ${'rows/s'.padStart(8)} ${'median s'.padStart(9)} ${'min s'.padStart(7)} ${'max s'.padStart(7)}`);
for (const x of cases) {
  const s = [...x.times].sort((a, b) => a - b);
  const m = median(s);
  console.log(`${x.name.padEnd(48)} ${Math.round(rows / (m / 1000)).toLocaleString('en-US').padStart(8)} ${(m / 1000).toFixed(2).padStart(9)} ${(s[0] / 1000).toFixed(2).padStart(7)} ${(s.at(-1) / 1000).toFixed(2).padStart(7)}`);
}
console.log(`reproduce: npm run build && node bench/import.mjs --rows ${rows} --rounds ${rounds}`);
