// Export benchmark against the obvious script: at 100k accounts (--accounts N),
// `svc accounts export --fields ID,lastname,type,currency --concurrency 4
// --output f.csv` against a ten-line sequential Python 3 script (stdlib only,
// urllib, offset pages of 1000 over plain HTTP: bench/export-python.py) that
// writes the same CSV. Whole processes are timed, start-up included, in
// interleaved rounds (the order alternating), against one sandbox started for
// the run (a separate process, temporary data dir). Reports medians and the
// ratio; the target is svc taking no longer than the script.
//
//   npm run bench:export-python                 # 100000 accounts, 7 rounds
//   node bench/export-vs-python.mjs --accounts 20000 --rounds 3 --check   # exit 1 when the target is missed
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const rounds = option('--rounds', 7);
const accounts = option('--accounts', 100_000);
const check = args.includes('--check');
const python = process.env.PYTHON ?? 'python3';
const TARGET = 1.0;

if (!existsSync(`${root}dist/svc.cjs`)) {
  console.error('bench: dist/svc.cjs is missing; run `npm run build` first');
  process.exit(2);
}

const temp = mkdtempSync(join(tmpdir(), 'svc-bench-export-python-'));
const env = { ...process.env, SVC_CONFIG_DIR: join(temp, 'config'), NO_COLOR: '1' };
for (const name of ['SVC_URL', 'SVC_TOKEN', 'SVC_TOKEN_FILE', 'SVC_PROFILE', 'HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) delete env[name];
const svc = (argv, input, extra = {}) => spawnSync(process.execPath, ['bin/svc.js', ...argv], { cwd: root, env: { ...env, ...extra }, input, encoding: 'utf8' });

function start() {
  const t0 = performance.now();
  const started = svc(['sandbox', 'start', '--port', '0', '--data-dir', join(temp, 'data'), '--seed-accounts', String(accounts), '-o', 'json']);
  if (started.status !== 0) throw new Error(`svc sandbox start failed: ${started.stderr}`);
  const sandbox = JSON.parse(started.stdout);
  // A profile of the bench's own (the sandbox names its profile after its data dir).
  const added = svc(['profile', 'add', 'bench', '--url', sandbox.instanceUrl]);
  if (added.status !== 0) throw new Error(`svc profile add failed: ${added.stderr}`);
  const login = svc(['login', '--profile', 'bench', '--user', sandbox.user, '--password-stdin', '--insecure-storage'], sandbox.password, { SVC_APPSECRET: sandbox.appsecret });
  if (login.status !== 0) throw new Error(`svc login failed: ${login.stderr}`);
  const token = svc(['auth', 'token', '--profile', 'bench']).stdout.trim();
  if (!token) throw new Error('svc auth token printed nothing');
  console.log(`sandbox with ${accounts.toLocaleString('en-US')} accounts ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { url: sandbox.instanceUrl, token };
}

let sb;
try {
  sb = start();
} catch (err) {
  rmSync(temp, { recursive: true, force: true });
  throw err;
}

const fields = 'ID,lastname,type,currency';
const clients = [
  { name: `python3 export-python.py (offset pages, sequential)`, file: join(temp, 'python.csv'), argv: (f) => [python, [join(root, 'bench/export-python.py'), sb.url, sb.token, f]] },
  {
    name: `svc accounts export --concurrency 4`,
    file: join(temp, 'svc.csv'),
    argv: (f) => [process.execPath, ['bin/svc.js', 'accounts', 'export', '--profile', 'bench', '--fields', fields, '--concurrency', '4', '--output', f]],
    env: { SVC_TOKEN: sb.token },
  },
];

function once(c) {
  const [cmd, argv] = c.argv(c.file);
  const t0 = performance.now();
  const r = spawnSync(cmd, argv, { cwd: root, env: { ...env, ...c.env }, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${c.name} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const times = clients.map(() => []);
try {
  for (const c of clients) once(c); // warm the file cache and the sandbox's
  const [a, b] = clients.map((c) => readFileSync(c.file));
  if (!a.equals(b)) throw new Error('svc and the Python script wrote different files');
  const lines = a.toString('utf8').split('\n').length - 2;
  if (lines !== accounts) throw new Error(`expected ${accounts} rows, got ${lines}`);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [1, 0] : [0, 1];
    for (const i of order) times[i].push(once(clients[i]));
  }
} finally {
  svc(['sandbox', 'stop', '--data-dir', join(temp, 'data')]);
  rmSync(temp, { recursive: true, force: true });
}

const [py, sv] = times.map(median);
const ratio = sv / py;
console.log(`export of ${accounts.toLocaleString('en-US')} accounts to CSV (${fields}), identical files, ${rounds} interleaved rounds, node ${process.version}`);
console.log(`${'client'.padEnd(52)} ${'median s'.padStart(9)} ${'min s'.padStart(7)} ${'max s'.padStart(7)}`);
clients.forEach((c, i) => {
  const s = [...times[i]].sort((x, y) => x - y);
  console.log(`${c.name.padEnd(52)} ${(median(s) / 1000).toFixed(2).padStart(9)} ${(s[0] / 1000).toFixed(2).padStart(7)} ${(s.at(-1) / 1000).toFixed(2).padStart(7)}`);
});
const ok = ratio <= TARGET;
console.log(`svc / python: ${ratio.toFixed(2)}x  (target <= ${TARGET.toFixed(2)}x: ${ok ? 'ok' : 'MISSED'})`);
if (check && !ok) process.exit(1);
