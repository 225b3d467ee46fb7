// Startup benchmark: how much slower than a bare `node -e 0` svc starts.
// Runs every case in turn (interleaved, so machine noise hits all alike) and
// reports medians and ratios against the bare-node baseline of the same run.
// One case makes a request: `svc accounts get` against a sandbox started for
// the run (temporary data dir, 100 accounts, token in a temporary config).
//
//   npm run bench:startup              # 30 rounds
//   node bench/startup.mjs --rounds 50 --check   # exit 1 when a target is missed
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const args = process.argv.slice(2);
const rounds = Number(args[args.indexOf('--rounds') + 1]) || 30;
const check = args.includes('--check');

if (!existsSync(`${root}dist/svc.js`)) {
  console.error('bench: dist/svc.js is missing; run `npm run build` first');
  process.exit(2);
}

const temp = mkdtempSync(join(tmpdir(), 'svc-bench-startup-'));
const env = { ...process.env, SVC_CONFIG_DIR: join(temp, 'config'), SVC_PROFILE: 'bench', NO_COLOR: '1' };
for (const name of ['SVC_URL', 'SVC_TOKEN', 'SVC_TOKEN_FILE']) delete env[name];
const svc = (args, input) => spawnSync(process.execPath, ['bin/svc.js', ...args], { cwd: root, env, input, encoding: 'utf8' });

/** A sandbox for the request case, and a profile signed in to it (token in a 0600 file of the temporary config). */
function startSandbox() {
  const started = svc(['sandbox', 'start', '--port', '0', '--data-dir', join(temp, 'data'), '--seed-accounts', '100', '-o', 'json']);
  if (started.status !== 0) throw new Error(`svc sandbox start failed: ${started.stderr}`);
  const sandbox = JSON.parse(started.stdout);
  const added = svc(['profile', 'add', 'bench', '--url', sandbox.instanceUrl]);
  if (added.status !== 0) throw new Error(`svc profile add failed: ${added.stderr}`);
  env.SVC_APPSECRET = sandbox.appsecret;
  const login = svc(['login', '--user', sandbox.user, '--password-stdin', '--insecure-storage'], sandbox.password);
  delete env.SVC_APPSECRET;
  if (login.status !== 0) throw new Error(`svc login failed: ${login.stderr}`);
  const first = svc(['accounts', 'query', '--limit', '1', '--fields', 'ID', '-o', 'json']);
  if (first.status !== 0) throw new Error(`svc accounts query failed: ${first.stderr}`);
  return String(JSON.parse(first.stdout)[0].ID);
}

function stopSandbox() {
  svc(['sandbox', 'stop', '--data-dir', join(temp, 'data')]);
  rmSync(temp, { recursive: true, force: true });
}

let id;
try {
  id = startSandbox();
} catch (err) {
  stopSandbox();
  throw err;
}

const cases = [
  { name: 'node -e 0 (baseline)', argv: ['-e', '0'] },
  { name: 'svc --version', argv: ['bin/svc.js', '--version'], target: 1.3 },
  { name: 'svc describe accounts (json)', argv: ['bin/svc.js', 'describe', 'accounts', '-o', 'json'], target: 1.6 },
  { name: 'svc describe accounts (table)', argv: ['bin/svc.js', 'describe', 'accounts', '-o', 'table'], target: 1.6 },
  { name: 'svc --help', argv: ['bin/svc.js', '--help'] },
  { name: 'svc accounts get ID (one request)', argv: ['bin/svc.js', 'accounts', 'get', id, '-o', 'json'] },
];

function once(argv) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, argv, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const times = cases.map(() => []);
try {
  for (const c of cases) once(c.argv); // warm the file cache
  for (let r = 0; r < rounds; r++) cases.forEach((c, i) => times[i].push(once(c.argv)));
} finally {
  stopSandbox();
}

const base = median(times[0]);
let missed = 0;
console.log(`startup, ${rounds} interleaved rounds, node ${process.version}`);
console.log(`${'case'.padEnd(32)} ${'median ms'.padStart(10)} ${'ratio'.padStart(7)}  target`);
cases.forEach((c, i) => {
  const med = median(times[i]);
  const ratio = med / base;
  const ok = c.target === undefined || ratio <= c.target;
  if (!ok) missed++;
  const target = c.target === undefined ? '' : `<= ${c.target.toFixed(2)}x ${ok ? 'ok' : 'MISSED'}`;
  console.log(`${c.name.padEnd(32)} ${med.toFixed(1).padStart(10)} ${`${ratio.toFixed(2)}x`.padStart(7)}  ${target}`);
});
if (check && missed > 0) process.exit(1);
