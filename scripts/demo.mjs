// `npm run demo`: the main job end to end. Builds svc, starts a sandbox with
// svc's own commands in a temporary data dir, signs in, queries customers,
// exports them as CSV, and stops the sandbox again, even when a step fails.
// Sign-in and queries go over plain HTTP until svc's record commands land.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const temp = mkdtempSync(join(tmpdir(), 'svc-demo-'));
const dataDir = join(temp, 'sandbox');
const QUERY = { filter: { type: 1 }, fields: ['ID', 'lastname', 'contact.city'], limit: 5 };

class DemoError extends Error {}

/** Runs `svc …` as a user would; returns its stdout when `capture` is set. */
function svc(args, { title, capture = false } = {}) {
  if (title) process.stdout.write(`\n$ svc ${args.join(' ')}    # ${title}\n`);
  const r = spawnSync(process.execPath, ['bin/svc.js', ...args], { cwd: root, encoding: 'utf8', stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'] });
  if (r.status !== 0) throw new DemoError(`'svc ${args.join(' ')}' exited ${r.status ?? r.signal}`);
  return r.stdout;
}

/** One HTTP call to the sandbox; fails with the service's own message. */
async function call(url, init, what) {
  const res = await fetch(url, init);
  const body = await res.text();
  if (!res.ok) throw new DemoError(`${what} failed: ${res.status} ${body.trim().split('\n')[0]}`);
  return body;
}

async function login(sandbox) {
  process.stdout.write(`\n# sign in as ${sandbox.user} with the svc-cli application's secret: POST ${sandbox.instanceUrl}/auth/v1/login\n`);
  const form = new URLSearchParams({ name: sandbox.user, password: sandbox.password, identifier: 'svc-demo', appsecret: sandbox.appsecret });
  const body = await call(`${sandbox.instanceUrl}/auth/v1/login`, { method: 'POST', body: form }, 'sign-in');
  const { token } = JSON.parse(body);
  process.stdout.write(`token ${token.slice(0, 6)}… (application-specific bearer token)\n`);
  return token;
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
  const token = await login(sandbox);
  await showCustomers(sandbox, token);
  await exportCustomers(sandbox, token);
}

/** Stops the sandbox (fine when none runs) and removes the temporary files. */
function cleanUp() {
  const r = spawnSync(process.execPath, ['bin/svc.js', 'sandbox', 'stop', '--data-dir', dataDir], { cwd: root, encoding: 'utf8' });
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
if (!process.exitCode) process.stdout.write('\ndemo: done. Next: `svc sandbox start`, `svc help exit-codes`, `svc completion bash`.\n');
