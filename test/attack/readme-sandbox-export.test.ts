/**
 * README audit of "Local sandbox" and "Exports for cron": where svc does not do
 * what the README promises (each test names the README line it holds svc to).
 *
 * - `--output FILE` (README 248) and `-o FORMAT` (README 245) are one option
 *   underneath, so the later silently replaces the earlier: the file is never
 *   written (the export goes to stdout) or is written in a format other than
 *   the one asked for, with exit 0.
 * - `--output NAME` with a name that has no dot or slash is read as an output
 *   format, and the error does not name the way to write that file.
 * - `svc sandbox status|start --data-dir DIR` name a fix that acts on the
 *   default data dir, not DIR.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { sandboxCli, svc } from '../helpers/cli.js';
import { freshDataDir, serveDataDir, type Serving } from '../commands/sandbox/serving.js';

const { sandbox, run } = sandboxCli();
const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'svc-readme-export-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const bin = resolve(__dirname, '../../bin/svc.js');
function spawnSvc(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, SVC_CONFIG_DIR: join(cwd, 'cfg'), SVC_URL: sandbox.instanceUrl, SVC_TOKEN: sandbox.token('demo'), NO_COLOR: '1' }, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('README 245/248: --output FILE together with -o FORMAT', () => {
  it('--output FILE then -o csv: the file is written (or the clash is refused), not silently dropped for stdout', async () => {
    const file = join(tempDir(), 'accounts.csv');
    const r = await run(['accounts', 'export', '--fields', 'ID', '--output', file, '-o', 'csv']);
    // Today: exit 0, the CSV on stdout, no file at all.
    if (r.code === 2) {
      expect(r.stderr).toMatch(/--output|-o/);
      expect(r.stdout).toBe('');
      return;
    }
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(file), `no ${file}; stdout held ${r.stdout.length} chars`).toBe(true);
    expect(r.stdout).toBe('');
  });

  it('-o ndjson then --output FILE.csv: not CSV written silently where ndjson was asked for', async () => {
    const file = join(tempDir(), 'accounts.csv');
    const r = await run(['accounts', 'export', '--fields', 'ID', '-o', 'ndjson', '--output', file]);
    if (r.code === 2) {
      expect(r.stderr).toMatch(/-o|--format/);
      expect(existsSync(file)).toBe(false);
      return;
    }
    // Today: exit 0 and FILE holds "ID\n1\n2…": the -o ndjson was dropped without a word.
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(file, 'utf8').split('\n')[0]).toBe('{"ID":1}');
  });
});

describe('README 248: --output FILE with a plain file name', () => {
  it('--format csv --output accounts (no dot, no slash) writes ./accounts, or its error names --output-file', async () => {
    const cwd = tempDir();
    const r = await spawnSvc(['accounts', 'export', '--fields', 'ID', '--format', 'csv', '--output', 'accounts'], cwd);
    if (r.code === 0) {
      expect(readFileSync(join(cwd, 'accounts'), 'utf8').startsWith('ID\n')).toBe(true);
      return;
    }
    // Today: exit 2, "svc: unknown output format 'accounts' (choose table, json, ndjson, csv, tsv)".
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--output-file|\.\/accounts/);
  }, 15_000);
});

describe('README 105-107: sandbox messages name a fix for the data dir in use', () => {
  const open: Serving[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  it('status --data-dir DIR, not running: the advice starts DIR, not the default sandbox', async () => {
    const dataDir = freshDataDir();
    const r = await svc(['sandbox', 'status', '--data-dir', dataDir]);
    expect(r.code).toBe(3);
    // Today: "start one with 'svc sandbox start'", which starts ~/.local/share/svc/sandbox.
    expect(r.stderr).toContain('--data-dir');
  });

  it('reset --data-dir DIR, not running: the advice starts DIR, not the default sandbox', async () => {
    const dataDir = freshDataDir();
    const r = await svc(['sandbox', 'reset', '--data-dir', dataDir, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const line = r.stderr.split('\n').find((l) => l.includes('not running')) ?? '';
    expect(line, r.stderr).toMatch(/svc sandbox start/);
    // Today: "it is not running: start it with 'svc sandbox start'".
    expect(line).toContain('--data-dir');
  });

  it('start --data-dir DIR while DIR runs: the advice stops DIR, not the default sandbox', async () => {
    const dataDir = freshDataDir();
    open.push(await serveDataDir(dataDir));
    const r = await svc(['sandbox', 'start', '--data-dir', dataDir, '--port', '0']);
    expect(r.code, r.stderr).toBe(0);
    const line = r.stderr.split('\n').find((l) => l.includes('already runs')) ?? '';
    expect(line, r.stderr).toMatch(/already runs/);
    // Today: "'svc sandbox stop' first to start it with other options", which stops the default one.
    expect(line).toContain('--data-dir');
  });
});
