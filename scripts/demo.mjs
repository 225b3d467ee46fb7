// `npm run demo`: the main job end to end, with svc's own commands. Builds svc,
// starts a sandbox in a temporary data dir, signs in with svc login, queries
// customers with a filter, exports them to a CSV file, signs out and stops the sandbox
// again, even when a step fails; then prints the next steps, as commands that run
// as printed from a clone (test/cli/demo-next-steps.test.ts runs them).
// svc's config lives in the temporary dir too: the demo never touches yours.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * What to run next, as printed at the end of the demo. After `npm ci` svc is not on the PATH: from the
 * clone it runs as `npx svc` (npm runs the package's own bin), or as `svc` after `npm link`. Without a
 * keychain (a headless machine) the token can only go to the opt-in plain file.
 */
export function nextSteps({ keychain = true } = {}) {
  const login = keychain
    ? '  npx svc login --profile sandbox --user demo   # asks for the password start printed'
    : '  npx svc login --profile sandbox --user demo --insecure-storage   # asks for the password and appsecret start printed';
  return [
    'Next, from this folder (svc is not on your PATH: run it as `npx svc`, or run `npm link` once for plain `svc`):',
    '  npx svc sandbox start                         # a sandbox of your own, in the background; prints its credentials',
    login,
    "  npx svc accounts query --filter 'type = CUSTOMER' --limit 5",
    '  npx svc sandbox stop',
    '  npx svc help                                  # commands, and the topics: exit-codes, filters',
  ];
}

const main = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
const root = fileURLToPath(new URL('../', import.meta.url));
const temp = main ? mkdtempSync(join(tmpdir(), 'svc-demo-')) : '';
const dataDir = join(temp, 'sandbox');
// The demo's secrets go to a keychain service of its own, never over the user's. Its sandbox's data dir
// is the default one for this config (SVC_SANDBOX_DIR), so its profile is named `sandbox`.
const env = { ...process.env, SVC_CONFIG_DIR: join(temp, 'config'), SVC_SANDBOX_DIR: dataDir, SVC_KEYCHAIN_SERVICE: `svc-demo-${process.pid}` };
delete env.SVC_PROFILE;
delete env.SVC_URL;
delete env.SVC_TOKEN;
delete env.SVC_TOKEN_FILE;
/** Whether svc login found a usable keychain (else the demo kept the token in a plain file). */
let keychainUsable = true;

class DemoError extends Error {}

/** Arguments as a user would type them in a shell. */
function shellWords(args) {
  return args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** Runs `svc …` as a user would; returns its stdout when `capture` is set. */
function svc(args, { title, capture = false, input, extraEnv = {}, allowFail = false } = {}) {
  if (title) process.stdout.write(`\n$ svc ${shellWords(args)}    # ${title}\n`);
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
  keychainUsable = false;
  process.stdout.write('(no usable OS keychain on this machine, so the demo keeps the token in a 0600 file in its temporary config)\n');
  svc([...args, '--insecure-storage'], { input: sandbox.password, extraEnv });
}

/** The customers of the demo tenant as a CSV file, with svc's export (keyset pages, atomic file, manifest). */
function exportCustomers() {
  const file = join(temp, 'customers.csv');
  const args = ['accounts', 'export', '--filter', 'type = CUSTOMER', '--fields', 'ID,lastname,city=contact.city,lastmodified', '--format', 'csv', '--output', file, '--manifest'];
  svc(args, { title: 'every customer to a file, as a cron job would' });
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const manifest = JSON.parse(readFileSync(`${file}.manifest.json`, 'utf8'));
  process.stdout.write(`wrote ${file}: ${manifest.rows} customers, sha256 ${String(manifest.sha256).slice(0, 12)}…; the first lines:\n${lines.slice(0, 6).join('\n')}\n`);
}

/** Set once svc is built: before that, there is nothing to clean up, and no svc to do it with. */
let built = false;

async function demo() {
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new DemoError("the build failed (see above); fix it, or run 'npm ci' if the dependencies are missing");
  built = true;
  svc(['describe', 'accounts.type', '-o', 'table'], { title: 'what account type 1 means' });
  const out = svc(['sandbox', 'start', '--port', '0', '-o', 'json'], { title: 'a local sandbox of the service', capture: true });
  const sandbox = JSON.parse(out);
  const shown = { ...sandbox, password: '…', appsecret: '…', ...(sandbox.clientSecret ? { clientSecret: '…' } : {}) };
  process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
  login(sandbox);
  svc(['auth', 'status', '-o', 'table'], { title: 'which credential svc uses' });
  svc(['accounts', 'query', '--filter', 'type = CUSTOMER and contact.city ~* "^[bk]"', '--fields', 'ID,lastname,type,city=contact.city', '--limit', '5', '-o', 'table'], {
    title: 'customers whose contact lives in a city starting with B or K',
  });
  svc(['accounts', 'count', '--filter', 'type = CUSTOMER', '-o', 'table'], { title: 'how many customers' });
  exportCustomers();
}

/** Stops the sandbox (fine when none runs) and removes the temporary files. */
function cleanUp() {
  if (!built) {
    rmSync(temp, { recursive: true, force: true });
    return;
  }
  const out = spawnSync(process.execPath, ['bin/svc.js', 'logout', '--profile', 'sandbox'], { cwd: root, encoding: 'utf8', env });
  const signedOut = out.stderr.split('\n').find((l) => l.startsWith('signed out'));
  if (out.status === 0 && signedOut) process.stdout.write(`\n$ svc logout --profile sandbox\n${signedOut}\n`);
  // Forget the demo's profile and the secrets kept for it.
  spawnSync(process.execPath, ['bin/svc.js', 'profile', 'remove', 'sandbox'], { cwd: root, encoding: 'utf8', env });
  const r = spawnSync(process.execPath, ['bin/svc.js', 'sandbox', 'stop', '--data-dir', dataDir], { cwd: root, encoding: 'utf8', env });
  if (r.status === 0 && r.stderr.startsWith('sandbox stopped')) process.stdout.write(`\n$ svc sandbox stop --data-dir ${dataDir}\n${r.stderr}`);
  else if (r.status !== 0) process.stderr.write(`demo: could not stop the sandbox: ${r.stderr}`);
  rmSync(temp, { recursive: true, force: true });
}

if (main) {
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
  if (!process.exitCode) process.stdout.write(`\ndemo: done.\n${nextSteps({ keychain: keychainUsable }).join('\n')}\n`);
}
