// Startup benchmark: how much slower than a bare `node -e 0` svc starts.
// Runs every case in turn (interleaved, so machine noise hits all alike) and
// reports medians and ratios against the bare-node baseline of the same run.
// The request cases talk to a sandbox started for the run (temporary data
// dir, 100 accounts): `svc accounts count` with SVC_TOKEN, the same with the
// token in the OS keychain (under a throwaway service name; skipped, saying
// why, when no Secret Service answers), `svc accounts get ID`, and the floor:
// the same count request sent by a bare node:http script (bench/count-request.mjs), and
// `svc accounts get ID --jq .lastname`, what --jq's engine adds to a command.
//
//   npm run bench:startup              # 30 rounds
//   node bench/startup.mjs --rounds 50 --check   # exit 1 when a target is missed
//
// The keychain case needs a Secret Service, e.g.:
//   dbus-run-session -- sh -c 'export HOME="$(mktemp -d)"; echo -n ci | gnome-keyring-daemon --unlock --components=secrets >/dev/null; npm run bench:startup'
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

if (!existsSync(`${root}dist/svc.cjs`)) {
  console.error('bench: dist/svc.cjs is missing; run `npm run build` first');
  process.exit(2);
}

const temp = mkdtempSync(join(tmpdir(), 'svc-bench-startup-'));
const keychainService = `svc-bench-${process.pid}`;
const env = { ...process.env, SVC_CONFIG_DIR: join(temp, 'config'), SVC_PROFILE: 'bench', NO_COLOR: '1' };
for (const name of ['SVC_URL', 'SVC_TOKEN', 'SVC_TOKEN_FILE', 'SVC_KEYCHAIN_SERVICE']) delete env[name];
const svc = (argv, input, extra = {}) => spawnSync(process.execPath, ['bin/svc.js', ...argv], { cwd: root, env: { ...env, ...extra }, input, encoding: 'utf8' });

/**
 * A sandbox for the request cases, and two profiles signed in to it: `bench`
 * (token in a 0600 file of the temporary config) and `bench-keychain` (token
 * in the keychain, when there is one).
 */
function startSandbox() {
  const started = svc(['sandbox', 'start', '--port', '0', '--data-dir', join(temp, 'data'), '--seed-accounts', '100', '-o', 'json']);
  if (started.status !== 0) throw new Error(`svc sandbox start failed: ${started.stderr}`);
  const sandbox = JSON.parse(started.stdout);
  for (const name of ['bench', 'bench-keychain']) {
    const added = svc(['profile', 'add', name, '--url', sandbox.instanceUrl]);
    if (added.status !== 0) throw new Error(`svc profile add failed: ${added.stderr}`);
  }
  const login = svc(['login', '--user', sandbox.user, '--password-stdin', '--insecure-storage'], sandbox.password, { SVC_APPSECRET: sandbox.appsecret });
  if (login.status !== 0) throw new Error(`svc login failed: ${login.stderr}`);
  const token = svc(['auth', 'token'], undefined, {}).stdout.trim();
  if (!token) throw new Error('svc auth token printed nothing');
  const kc = svc(['login', '--profile', 'bench-keychain', '--user', sandbox.user, '--password-stdin'], sandbox.password, { SVC_APPSECRET: sandbox.appsecret, SVC_KEYCHAIN_SERVICE: keychainService });
  const keychain = kc.status === 0 ? undefined : kc.stderr.trim().replace(/^svc: /, '').split(/;|\n/)[0] || `svc login exited ${kc.status}`;
  const first = svc(['accounts', 'query', '--limit', '1', '--fields', 'ID', '-o', 'json']);
  if (first.status !== 0) throw new Error(`svc accounts query failed: ${first.stderr}`);
  return { url: sandbox.instanceUrl, token, id: String(JSON.parse(first.stdout)[0].ID), keychainProblem: keychain };
}

function stopSandbox(keychainUsed) {
  if (keychainUsed) svc(['logout', '--profile', 'bench-keychain'], undefined, { SVC_KEYCHAIN_SERVICE: keychainService });
  svc(['sandbox', 'stop', '--data-dir', join(temp, 'data')]);
  rmSync(temp, { recursive: true, force: true });
}

let sb;
try {
  sb = startSandbox();
} catch (err) {
  stopSandbox(false);
  throw err;
}

const withToken = { SVC_TOKEN: sb.token };
const cases = [
  { name: 'node -e 0 (baseline)', argv: ['-e', '0'] },
  { name: 'svc --version', argv: ['bin/svc.js', '--version'], target: 1.1 },
  { name: 'svc --help', argv: ['bin/svc.js', '--help'], target: 1.25 },
  { name: 'svc describe accounts (json)', argv: ['bin/svc.js', 'describe', 'accounts', '-o', 'json'] },
  { name: 'svc describe accounts (table)', argv: ['bin/svc.js', 'describe', 'accounts', '-o', 'table'], target: 1.4 },
  { name: 'node:http count request (floor)', argv: ['bench/count-request.mjs'], env: { SVC_URL: sb.url, SVC_TOKEN: sb.token } },
  { name: 'svc accounts count (SVC_TOKEN)', argv: ['bin/svc.js', 'accounts', 'count'], env: withToken, target: 1.5 },
  {
    name: 'svc accounts count (keychain)',
    argv: ['bin/svc.js', 'accounts', 'count'],
    env: { SVC_PROFILE: 'bench-keychain', SVC_KEYCHAIN_SERVICE: keychainService },
    target: 1.8,
    skipped: sb.keychainProblem && `no usable keychain here (${sb.keychainProblem}); run the bench under a Secret Service, e.g. dbus-run-session with gnome-keyring (see the top of bench/startup.mjs)`,
  },
  { name: 'svc accounts get ID (SVC_TOKEN)', argv: ['bin/svc.js', 'accounts', 'get', sb.id, '-o', 'json'], env: withToken },
  // The same with --jq: what jq's engine adds (a worker thread that loads jq-web and compiles its jq.wasm).
  { name: 'svc accounts get ID --jq .lastname', argv: ['bin/svc.js', 'accounts', 'get', sb.id, '--jq', '.lastname'], env: withToken },
];
const running = cases.filter((c) => !c.skipped);

function once(c) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, c.argv, { cwd: root, env: { ...env, ...c.env }, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${c.argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const times = new Map(running.map((c) => [c, []]));
try {
  for (const c of running) once(c); // warm the file cache
  for (let r = 0; r < rounds; r++) for (const c of running) times.get(c).push(once(c));
} finally {
  stopSandbox(!sb.keychainProblem);
}

const base = median(times.get(cases[0]));
let missed = 0;
console.log(`startup, ${rounds} interleaved rounds, node ${process.version}`);
console.log(`${'case'.padEnd(34)} ${'median ms'.padStart(10)} ${'ratio'.padStart(7)}  target`);
for (const c of cases) {
  if (c.skipped) {
    console.log(`${c.name.padEnd(34)} ${'skipped'.padStart(10)} ${''.padStart(7)}  ${c.skipped}`);
    continue;
  }
  const med = median(times.get(c));
  const ratio = med / base;
  const ok = c.target === undefined || ratio <= c.target;
  if (!ok) missed++;
  const target = c.target === undefined ? '' : `<= ${c.target.toFixed(2)}x ${ok ? 'ok' : 'MISSED'}`;
  console.log(`${c.name.padEnd(34)} ${med.toFixed(1).padStart(10)} ${`${ratio.toFixed(2)}x`.padStart(7)}  ${target}`);
}
if (check && missed > 0) process.exit(1);
