/**
 * s7-r2: token files after today's change (src/auth/chain.ts, e7e52d2): a token file that is not a
 * regular file is now opened O_NONBLOCK and wrapped in a net.Socket. README "Signing in": --token-file
 * FILE / SVC_TOKEN_FILE; "Exit codes": a usage error is exit 2, one line naming the problem.
 *
 * FINDING tests fail on HEAD and pass once fixed; HELD tests pass now.
 */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { svc } from '../helpers/cli.js';

/** Nobody listens here: a token that gets this far fails at connect (exit 1), not at reading the file. */
const NOWHERE = 'http://127.0.0.1:9/demo';

function tokenFile(content: string | Buffer): string {
  const file = join(mkdtempSync(join(tmpdir(), 's7-r2-token-')), 'token');
  writeFileSync(file, content, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

function oneLine(stderr: string): void {
  expect(stderr.trimEnd().split('\n'), stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/unexpected error|TypeError|ERR_INVALID_FD_TYPE|Unsupported fd type/);
}

describe('FINDING: a token file that is a character device (/dev/null; /dev/stdin under cron, whose stdin is /dev/null) is an internal error', () => {
  it.each([
    ['--token-file', ['--token-file', '/dev/null'], {}],
    ['SVC_TOKEN_FILE', [], { SVC_TOKEN_FILE: '/dev/null' }],
  ] as const)('%s /dev/null: exit 2 "token file \'/dev/null\' is empty", one line', async (_label, flags, env) => {
    const r = await svc(['--url', NOWHERE, '--retries', '0', ...flags, 'whoami'], { env: { NO_COLOR: '1', ...env } });
    oneLine(r.stderr);
    expect(r.stderr).toContain("token file '/dev/null' is empty");
    expect(r.code).toBe(2);
  });
});

describe('HELD: legitimate token files are read as one token', () => {
  const cases: [string, string | Buffer, string][] = [
    ['CRLF line ending', 'abc-._~+/=XYZ\r\n', 'abc-._~+/=XYZ'],
    ['UTF-8 BOM and LF', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('tok_123\n')]), 'tok_123'],
    ['4096 characters', `${'a'.repeat(4096)}\n`, 'a'.repeat(4096)],
  ];
  it.each(cases)('%s: the token reaches the HTTP request (exit 1: nobody listens), no usage error', async (_label, content) => {
    const r = await svc(['--url', NOWHERE, '--retries', '0', '--token-file', tokenFile(content), 'whoami'], { env: { NO_COLOR: '1' } });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).not.toMatch(/token file/);
  });

  it('4097 characters: exit 2 naming the length', async () => {
    const r = await svc(['--url', NOWHERE, '--token-file', tokenFile(`${'a'.repeat(4097)}\n`), 'whoami'], { env: { NO_COLOR: '1' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is 4,097 characters long/);
  });

  it('SVC_TOKEN with OAuth characters -._~+/= and a BOM: sent, not refused', async () => {
    const r = await svc(['--url', NOWHERE, '--retries', '0', 'whoami'], { env: { NO_COLOR: '1', SVC_TOKEN: '\ufeffya29.a0-._~+/=' } });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).not.toMatch(/SVC_TOKEN/);
  });
});

describe('FINDING: --token-file /dev/stdin typed on a terminal (as docker login --password-stdin is used): an internal error since today', () => {
  it('a terminal that gives "tok_typed" then Ctrl-D: the token is read (exit 1 here: nobody listens), no internal error', async () => {
    const { spawn } = await import('node:child_process');
    // A real pseudo-terminal, its input already typed: the token line, then Ctrl-D (EOF) on a line of its own.
    const py = spawn('python3', ['-c', [
      'import os, pty, sys',
      'm, s = pty.openpty()',
      'os.write(m, b"tok_typed\\n\\x04")',
      'print(os.ttyname(s), flush=True)',
      'sys.stdin.read()',
    ].join('\n')], { stdio: ['pipe', 'pipe', 'inherit'] });
    const path = await new Promise<string>((resolve) => py.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())));
    try {
      const r = await svc(['--url', NOWHERE, '--retries', '0', '--timeout', '3s', '--token-file', path, 'whoami'], { env: { NO_COLOR: '1' } });
      expect(r.stderr).not.toMatch(/unexpected error|Unsupported fd type/);
      expect(r.stderr).not.toMatch(/token file/);
      expect(r.code, r.stderr).toBe(1);
    } finally {
      py.stdin.end();
    }
  });
});

describe('FINDING: a FIFO whose writer wrote the token but keeps the pipe open is reported as "gave no token … nobody writes to"', () => {
  it('the token that came is taken when the wait ends, the pipe still open (not "nothing came")', async () => {
    const { execFileSync, spawn } = await import('node:child_process');
    const fifo = join(mkdtempSync(join(tmpdir(), 's7-r2-fifo-')), 'token');
    execFileSync('mkfifo', ['-m', '600', fifo]);
    // A writer that writes one token line and holds the pipe open (a sidecar, `(vault read; sleep) > fifo`).
    const writer = spawn('sh', ['-c', `exec 3>"${fifo}"; echo tok_from_sidecar >&3; read _`], { stdio: ['pipe', 'ignore', 'ignore'] });
    try {
      const r = await svc(['--url', NOWHERE, '--retries', '0', '--timeout', '1s', '--token-file', fifo, 'whoami'], { env: { NO_COLOR: '1' } });
      expect(r.stderr, 'a whole token line did come').not.toMatch(/gave no token|nobody writes|token file/);
      // The token was taken and sent: the instance nobody serves is what fails.
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/connection refused/);
    } finally {
      writer.stdin.end();
    }
  });
});
