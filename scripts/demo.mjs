// `npm run demo`: the main job end to end. Builds svc, starts a sandbox with
// svc's own commands in a temporary data dir, signs in with svc login, queries
// customers, exports them as CSV, signs out and stops the sandbox again, even
// when a step fails. Queries go over plain HTTP until svc's record commands land.
// svc's config lives in the temporary dir too: the demo never touches yours.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const temp = mkdtempSync(join(tmpdir(), 'svc-demo-'));
const dataDir = join(temp, 'sandbox');
const env = { ...process.env, SVC_CONFIG_DIR: join(temp, 'config') };
delete env.SVC_PROFILE;
delete env.SVC_URL;
delete env.SVC_TOKEN;
delete env.SVC_TOKEN_FILE;
const QUERY = { filter: { type: 1 }, fields: ['ID', 'lastname', 'contact.city'], limit: 5 };

class DemoError extends Error {}

/** Runs `svc …` as a user would; returns its stdout when `capture` is set. */
function svc(args, { title, capture = false, input, extraEnv = {}, allowFail = false } = {}) {
  if (title) process.stdout.write(`\n$ svc ${args.join(' ')}    # ${title}\n`);
  const r = spawnSync(process.execPath, ['bin/svc.js', ...args], {
    cwd: root,
    encoding: 'utf8',
    input,
    env: { ...env, ...extraEnv },
    stdio: [input === undefined ? 'ignore' : 'pipe', capture ? 'pipe' : 'inherit', allowFail ? 'pipe' : 'inherit'],
  });
  if (r.status !== 0 && !allowFail) throw new DemoError(`'svc ${args.join(' ')}' exited ${r.status ?? r.signal}`);
  return allowFail ? r : r.stdout;
}

/** One HTTP call to the sandbox; fails with the service's own message. */
async function call(url, init, what) {
  const res = await fetch(url, init);
  const body = await res.text();
  if (!res.ok) throw new DemoError(`${what} failed: ${res.status} ${body.trim().split('\n')[0]}`);
  return body;
}

/** Signs in with svc login: the token goes to the OS keychain, or (on a machine without one) a 0600 file in the demo's temporary config. */
function login(sandbox) {
  const args = ['login', '--profile', 'sandbox', '--user', sandbox.user, '--password-stdin'];
  const extraEnv = { SVC_APPSECRET: sandbox.appsecret };
  process.stdout.write(`\n$ printf '%s' "$PASSWORD" | SVC_APPSECRET=… svc ${args.join(' ')}    # sign in\n`);
  const r = svc(args, { input: sandbox.password, extraEnv, allowFail: true });
  if (r.status === 0) {
    process.stdout.write(r.stderr);
    return;
  }
  if (!/no usable OS keychain/.test(r.stderr)) throw new DemoError(`svc login failed: ${r.stderr.trim()}`);
  process.stdout.write('(no usable OS keychain on this machine, so the demo keeps the token in a 0600 file in its temporary config)\n');
  svc([...args, '--insecure-storage'], { input: sandbox.password, extraEnv });
}

async function query(sandbox, token, extra) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  return call(`${sandbox.instanceUrl}/api/v1/accounts`, { method: 'POST', headers, body: JSON.stringify({ ...QUERY, ...extra }) }, 'the accounts query');
}

async function showCustomers(sandbox, token) {
  process.stdout.write(`\n# five customers (type 1) with the city of their contact: POST ${sandbox.instanceUrl}/api/v1/accounts\n`);
  process.stdout.write(`${JSON.stringify(QUERY)}\n`);
  const rows = JSON.parse(await query(sandbox, token, {}));
  if (rows.length === 0) throw new DemoError('the accounts query found no customers');
  const widths = QUERY.fields.map((f) => Math.max(f.length, ...rows.map((r) => String(r[f] ?? '').length)));
  const line = (cells) => cells.map((c, i) => String(c ?? '').padEnd(widths[i])).join('  ').trimEnd();
  process.stdout.write(`${line(QUERY.fields.map((f) => f.toUpperCase()))}\n`);
  for (const r of rows) process.stdout.write(`${line(QUERY.fields.map((f) => r[f]))}\n`);
}

async function exportCustomers(sandbox, token) {
  const file = join(temp, 'customers.csv');
  process.stdout.write(`\n# every customer as CSV (an admin's export): the same query with "export": true, no limit\n`);
  const csv = await query(sandbox, token, { export: true, limit: undefined });
  writeFileSync(file, csv);
  const lines = readFileSync(file, 'utf8').split(/\r?\n/).filter(Boolean);
  process.stdout.write(`wrote ${file}: ${lines.length - 1} customers; the first lines:\n${lines.slice(0, 6).join('\n')}\n`);
}

async function demo() {
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new DemoError('the build failed');
  svc(['describe', 'accounts.type', '-o', 'table'], { title: 'what account type 1 means' });
  const out = svc(['sandbox', 'start', '--port', '0', '--data-dir', dataDir, '-o', 'json'], { title: 'a local sandbox of the service', capture: true });
  const sandbox = JSON.parse(out);
  const shown = { ...sandbox, password: '…', appsecret: '…' };
  process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
  login(sandbox);
  svc(['whoami', '-o', 'table'], { title: 'who the token belongs to' });
  process.stdout.write('\n$ TOKEN=$(svc auth token)    # the token, for the HTTP requests below\n');
  const token = svc(['auth', 'token'], { capture: true }).trim();
  await showCustomers(sandbox, token);
  await exportCustomers(sandbox, token);
}

/** Stops the sandbox (fine when none runs) and removes the temporary files. */
function cleanUp() {
  const out = spawnSync(process.execPath, ['bin/svc.js', 'logout', '--profile', 'sandbox'], { cwd: root, encoding: 'utf8', env });
  if (out.status === 0 && out.stderr.startsWith('signed out')) process.stdout.write(`\n$ svc logout --profile sandbox\n${out.stderr.replace(/^svc: warning.*\n/gm, '')}`);
  const r = spawnSync(process.execPath, ['bin/svc.js', 'sandbox', 'stop', '--data-dir', dataDir], { cwd: root, encoding: 'utf8', env });
  if (r.status === 0 && r.stderr.startsWith('sandbox stopped')) process.stdout.write(`\n$ svc sandbox stop --data-dir ${dataDir}\n${r.stderr}`);
  else if (r.status !== 0) process.stderr.write(`demo: could not stop the sandbox: ${r.stderr}`);
  rmSync(temp, { recursive: true, force: true });
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    cleanUp();
    process.exit(130);
  });
}

try {
  await demo();
} catch (err) {
  process.stderr.write(`demo: ${err instanceof DemoError ? err.message : err?.stack ?? err}\n`);
  process.exitCode = 1;
} finally {
  cleanUp();
}
if (!process.exitCode) process.stdout.write('\ndemo: done. Next: `svc sandbox start`, `svc login --profile sandbox`, `svc help exit-codes`.\n');
