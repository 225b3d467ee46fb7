/**
 * s9-r2 attack on how svc ends (src/cli/main.ts, src/util/exit-hooks.ts):
 * - a reader that goes away (`svc … | head -1`): exit 0, quietly, its lock
 *   removed by the exit hook, never the "stranded" guard's false alarm;
 * - the guard ("svc: internal error: the command stopped with its work
 *   unfinished (nothing left to wait for)"), which fires when the event loop
 *   empties while a command awaits: commands that legitimately wait on
 *   standard input (an empty pipe, a closed descriptor, a pipe whose writer
 *   holds it open) must not trip it.
 * The built svc (`node bin/svc.js`) is spawned; the reader is this test,
 * which closes its end of the pipe after the first line (as head -1 does).
 *
 * Everything here is HELD (passes today): claims that held.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { table } from '../../src/sandbox/schema.js';
import { sandboxCli, tempConfigDir } from '../helpers/cli.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { insertAccounts } from '../sync/support.js';
import { tempDir } from '../watch/support.js';

const { sandbox } = sandboxCli();
const STRANDED = /internal error|stranded|nothing left to wait for/;

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  lines: number;
  stderr: string;
}

/** Runs the built svc, its stdout read until the first line and then closed (head -1); stdin as given. */
function headOne(s: TestSandbox, args: readonly string[], opts: { stdin?: 'ignore' | 'pipe'; write?: string; holdStdin?: boolean; env?: Record<string, string> } = {}): Promise<Ended> {
  const env = { PATH: process.env.PATH ?? '', HOME: tempConfigDir(), SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1', ...opts.env };
  const child = spawn(process.execPath, ['bin/svc.js', ...args], { env, stdio: [opts.stdin ?? 'ignore', 'pipe', 'pipe'] });
  if (opts.stdin === 'pipe') {
    if (opts.write !== undefined) child.stdin!.write(opts.write);
    if (!opts.holdStdin) child.stdin!.end();
  }
  let out = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
    if (out.includes('\n')) child.stdout!.destroy();
  });
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(watchdog);
      child.stdin?.destroy();
      resolve({ code, signal, lines: out.split('\n').length - 1, stderr });
    }),
  );
}

describe('HELD s9-r2: `svc … | head -1` on each command that writes lines', () => {
  const cases: [string, (dir: string) => string[]][] = [
    ['query --all -o ndjson', () => ['accounts', 'query', '--all', '-o', 'ndjson', '--page-size', '5', '--filter', 'lastname ~ "^R2head "']],
    ['query --all --jq', () => ['accounts', 'query', '--all', '--jq', '.[].ID', '--page-size', '5', '--filter', 'lastname ~ "^R2head "']],
    ['export -o ndjson (stdout)', () => ['accounts', 'export', '-o', 'ndjson', '--page-size', '5', '--filter', 'lastname ~ "^R2head "']],
    ['export -o csv --concurrency 4 (stdout)', () => ['accounts', 'export', '-o', 'csv', '--page-size', '5', '--concurrency', '4', '--filter', 'lastname ~ "^R2head "']],
    ['api --paginate', () => ['api', 'accounts', '--paginate']],
    ['watch --cursor-file', (dir) => ['accounts', 'watch', '--page-size', '5', '--filter', 'lastname ~ "^R2head "', '--cursor-file', join(dir, 'cursor')]],
    ['watch (no cursor file)', () => ['accounts', 'watch', '--page-size', '5', '--filter', 'lastname ~ "^R2head "']],
  ];
  it.each(cases)('%s: exit 0, nothing on stderr, no lock left', async (_name, argsOf) => {
    const s = sandbox();
    const dir = tempDir();
    const n = (s.sandbox.db.prepare(`SELECT count(*) AS n FROM ${table('demo', 'accounts')} WHERE lastname LIKE 'R2head %'`).get() as { n: number }).n;
    if (n === 0) insertAccounts(s, 3000, Math.floor(Date.now() / 1000) - 3600, 'R2head');
    const end = await headOne(s, argsOf(dir));
    expect(end.stderr).not.toMatch(STRANDED);
    expect({ code: end.code, signal: end.signal, stderr: end.stderr }).toEqual({ code: 0, signal: null, stderr: '' });
    expect(readdirSync(dir).filter((f) => f.includes('svc-lock'))).toEqual([]);
  }, 30_000);
});

describe('HELD s9-r2: commands that wait on standard input never trip the stranded guard', () => {
  it.each([
    ['login --password-stdin, an empty pipe', ['login', '--user', 'demo', '--password-stdin', '--insecure-storage'], { stdin: 'pipe' as const, write: '' }],
    ['login --password-stdin, stdin ignored (/dev/null)', ['login', '--user', 'demo', '--password-stdin', '--insecure-storage'], { stdin: 'ignore' as const }],
    ['delete --filter without --yes, stdin a pipe', ['accounts', 'delete', '--filter', 'ID = 1'], { stdin: 'pipe' as const, write: 'y\n' }],
    ['count --filter-file -, an empty pipe', ['accounts', 'count', '--filter-file', '-'], { stdin: 'pipe' as const, write: '' }],
    ['import --from -, a header only', ['accounts', 'import', '--from', '-', '--format', 'csv'], { stdin: 'pipe' as const, write: 'lastname,currency\n' }],
    ['api --input -, an empty pipe', ['api', 'accounts', '-X', 'POST', '--input', '-'], { stdin: 'pipe' as const, write: '' }],
  ] as const)('%s: ends with its own message, never "internal error … nothing left to wait for"', async (_name, args, opts) => {
    const s = sandbox();
    const env: Record<string, string> = args[0] === 'login' ? { SVC_APPSECRET: 'x', SVC_TOKEN: '' } : {};
    const end = await headOne(s, args, { ...opts, env });
    expect(end.stderr).not.toMatch(STRANDED);
    expect(end.signal).toBeNull();
    expect([0, 1, 2]).toContain(end.code);
  }, 30_000);

  it('api --input -, a writer that holds the pipe open and writes late: svc waits (the pipe keeps it alive), then sends what came', async () => {
    const s = sandbox();
    const env = { PATH: process.env.PATH ?? '', HOME: tempConfigDir(), SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' };
    const child = spawn(process.execPath, ['bin/svc.js', 'api', 'accounts', '-X', 'POST', '--input', '-'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    // The writer comes once svc has started and is reading (its first request is the one the body goes in).
    child.stdin!.write('{"filters": {"ID": {"<": 3}}, ');
    setImmediate(() => child.stdin!.end('"fields": {"ID": "ID"}}'));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toMatch(STRANDED);
    expect([code, JSON.parse(stdout)]).toEqual([0, [{ ID: 1 }, { ID: 2 }]]);
  }, 30_000);
});
