// `npm run demo`: the main job, shown with svc's own commands as they exist.
// Today that is the catalogue (the sandbox, sign-in, queries and exports come
// with the next issues and join this demo as they land).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));

function step(title, args) {
  process.stdout.write(`\n$ svc ${args.join(' ')}    # ${title}\n`);
  const r = spawnSync(process.execPath, ['bin/svc.js', ...args], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    process.stderr.write(`demo: 'svc ${args.join(' ')}' exited ${r.status}\n`);
    process.exit(r.status ?? 1);
  }
}

const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

step('the version', ['--version']);
step('every record family, its verbs and permissions', ['resources', '-o', 'table']);
step('what an account is made of', ['describe', 'accounts', '-o', 'table']);
step('one field: the account types', ['describe', 'accounts.type', '-o', 'table']);
step('a path through a reference: the account contact\'s country', ['describe', 'accounts.contact.country', '-o', 'json']);
process.stdout.write('\ndemo: done. Next: `svc help exit-codes`, `svc completion bash`.\n');
