/**
 * s8-r2-out: messages after a26f05b ("every value svc refuses is echoed
 * through shown()"). README, Exit codes: "An error is one line on stderr naming
 * the problem and the fix"; README, Output: C0/C1 controls and bidi overrides
 * "would act on the terminal instead of showing". Paths and URLs come from
 * scripts and variables as often as IDs do.
 *
 * Tests named "HELD: …" are claims that held; the others fail today.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { svc } from '../helpers/cli.js';

/** An escape sequence (clears the screen), a line break and a right-to-left override. */
const V = 'x\u001b[2J\ny\u202ez';
const env = { SVC_URL: 'http://127.0.0.1:9/demo', SVC_TOKEN: 'a'.repeat(40), NO_COLOR: '1' };
// eslint-disable-next-line no-control-regex
const ACTS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function expectOneCleanLine(stderr: string): void {
  expect(stderr.endsWith('\n'), JSON.stringify(stderr)).toBe(true);
  expect(stderr.slice(0, -1).split('\n'), JSON.stringify(stderr)).toHaveLength(1);
  expect(stderr, JSON.stringify(stderr)).not.toMatch(ACTS);
}

describe('values still echoed raw: the error runs over two lines and carries ESC and U+202E', () => {
  const missing = `/nonexistent-s8r2/${V}`;
  const cases: [string, string[], Record<string, string>?][] = [
    ['svc --url VALUE accounts count (invalid instance URL)', ['--url', V, 'accounts', 'count']],
    ['SVC_URL=https://VALUE svc accounts count (invalid instance URL, from the environment)', ['accounts', 'count'], { SVC_URL: `https://${V}/acme` }],
    ['svc --ca-file MISSING accounts count (cannot read CA file)', ['--ca-file', missing, 'accounts', 'count']],
    ['svc accounts export --output MISSING/x.csv (directory does not exist)', ['accounts', 'export', '--output', `${missing}/x.csv`]],
    ['svc accounts export -o csv --output-file MISSING/x (directory does not exist)', ['accounts', 'export', '-o', 'csv', '--output-file', `${missing}/x`]],
    ['svc accounts export --output a.csv --output-file VALUE (the file given twice)', ['accounts', 'export', '--output', 'a.csv', '--output-file', V]],
    ['svc accounts export --format VALUE (unknown export format)', ['accounts', 'export', '--format', V]],
    ['svc sync VALUE (unknown family)', ['sync', V]],
    ['svc sync --into VALUE accounts (not a .sqlite/.duckdb name)', ['sync', '--into', V, 'accounts']],
    ['svc accounts sync --into MISSING/x.db (directory does not exist)', ['accounts', 'sync', '--into', `${missing}/x.db`]],
    ['svc profile add p --url … --client-id VALUE (invalid client id)', ['profile', 'add', 'p', '--url', 'https://erp.example.com/acme', '--client-id', V]],
    ['svc sandbox status --data-dir MISSING (no sandbox runs from …)', ['sandbox', 'status', '--data-dir', missing]],
  ];
  for (const [name, argv, extraEnv] of cases) {
    it(name, async () => {
      const r = await svc(argv, { env: { ...env, ...extraEnv } });
      expect(r.code, r.stderr).toBeGreaterThan(0);
      expect(r.stdout).toBe('');
      expectOneCleanLine(r.stderr);
    });
  }

  it('svc accounts import --results MISSING/r (cannot write the lock beside it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 's8-r2-out-'));
    const from = join(dir, 'rows.ndjson');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(from, '{"lastname":"a","currency":"EUR"}\n');
    const r = await svc(['accounts', 'import', '--from', from, '--results', `${missing}/r.ndjson`], { env });
    expect(r.code, r.stderr).toBeGreaterThan(0);
    expectOneCleanLine(r.stderr);
  });
});

describe('help and hints', () => {
  it('`svc resources help` and `svc resources help query` print help and exit 0, as `svc accounts help query` does (today exit 2: "unknown command \'help\'")', async () => {
    const other = await svc(['accounts', 'help', 'query'], { env });
    expect(other.code, 'HELD for accounts').toBe(0);
    for (const argv of [['resources', 'help'], ['resources', 'help', 'query']]) {
      const r = await svc(argv, { env });
      expect({ code: r.code, stderr: r.stderr }, argv.join(' ')).toEqual({ code: 0, stderr: '' });
      expect(r.stdout).toMatch(/^Usage: svc resources/);
    }
  });

  it('`svc list` and `svc list nosuch` say the family comes first, as `svc count` and `svc query nosuch` do (list is query\'s alias; today "unknown command \'list\' (run \'svc --help\')")', async () => {
    const count = await svc(['count'], { env });
    expect(count.stderr, 'HELD for count').toMatch(/the family comes first/);
    for (const argv of [['list'], ['list', 'nosuch']]) {
      const r = await svc(argv, { env });
      expect(r.code).toBe(2);
      expect(r.stderr, argv.join(' ')).toMatch(/the family comes first, then the verb/);
    }
  });
});

describe('HELD: commander\'s messages and group help', () => {
  it('HELD: an unknown option of 120 KB, bare or with =value, and an unknown command of 120 KB: one line under 500 bytes, exit 2', async () => {
    const big = 'a'.repeat(120_000);
    for (const argv of [['accounts', 'query', `--${big}`], ['accounts', 'query', `--lim=${big}`], [big], ['accounts', big]]) {
      const r = await svc(argv, { env });
      expect(r.code).toBe(2);
      expect(r.stderr.length).toBeLessThan(500);
      expectOneCleanLine(r.stderr);
    }
  });

  it('HELD: an unknown --opt=VALUE with escapes is one clean line', async () => {
    const r = await svc(['accounts', 'query', `--limt=${V}`], { env });
    expect(r.code).toBe(2);
    expectOneCleanLine(r.stderr);
  });

  it('HELD: `svc <group> help [verb]` exits 0 for accounts, auth, profile and sandbox; svc help help; svc accounts help --help', async () => {
    for (const argv of [['accounts', 'help'], ['accounts', 'help', 'get'], ['auth', 'help', 'login'], ['profile', 'help', 'add'], ['sandbox', 'help', 'start'], ['help', 'help'], ['accounts', 'help', '--help']]) {
      const r = await svc(argv, { env });
      expect({ code: r.code, stderr: r.stderr }, argv.join(' ')).toEqual({ code: 0, stderr: '' });
      expect(r.stdout, argv.join(' ')).toMatch(/^Usage: svc /);
    }
    for (const argv of [['auth', 'help', 'nosuch'], ['sandbox', 'help', V]]) {
      const r = await svc(argv, { env });
      expect(r.code).toBe(2);
      expectOneCleanLine(r.stderr);
    }
  });
});
