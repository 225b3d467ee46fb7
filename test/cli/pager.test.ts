/**
 * Tables on a terminal through $SVC_PAGER / $PAGER, in-process with a real
 * pager process (a shell that copies its input to a file, started by
 * main.ts's spawnPager), and the built svc on a real pseudo-terminal (script).
 * Pipes, JSON, CSV, text and exports are never paged; a pager that cannot start
 * leaves the table on the terminal.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processControl } from '../../src/cli/main.js';
import { sandboxCli, tempConfigDir, testProcesses, type SandboxRunOptions } from '../helpers/cli.js';

const { sandbox, run } = sandboxCli({ seedAccounts: 0 });
const dir = mkdtempSync(join(tmpdir(), 'svc-pager-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const COUNT = 12;

beforeAll(async () => {
  for (let i = 0; i < COUNT; i++) await sandbox().call('PUT', 'api/v1/accounts', { json: { lastname: `Pager ${i}`, currency: 'EUR' } });
});

let n = 0;
/** A pager that copies what it is given to a file, and the environment it saw to another. */
function filePager(): { command: string; paged(): string | undefined; env(): string | undefined } {
  const file = join(dir, `paged-${++n}`);
  return {
    command: `sh -c 'printf "%s|%s" "$LESS" "$LV" > "$0.env"; cat > "$0"' ${file}`,
    paged: () => (existsSync(file) ? readFileSync(file, 'utf8') : undefined),
    env: () => (existsSync(`${file}.env`) ? readFileSync(`${file}.env`, 'utf8') : undefined),
  };
}

/** svc in-process with a process control that can start a pager (the real one, from main.ts). */
const withPager = (argv: string[], o: SandboxRunOptions = {}) =>
  run(argv, { tty: true, ...o, processes: { ...testProcesses(), spawnPager: processControl().spawnPager } });

describe('the pager', () => {
  it('gets a table on a terminal, with LESS=FRX and LV=-c, and the terminal gets nothing', async () => {
    const pager = filePager();
    const r = await withPager(['accounts', 'query', '--fields', 'ID,lastname'], { env: { SVC_PAGER: pager.command } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    const lines = pager.paged()?.trimEnd().split('\n') ?? [];
    expect(lines[0]).toMatch(/^ID\s+LASTNAME$/);
    expect(lines.slice(1).map((l) => l.replace(/^\d+\s+/, ''))).toEqual(Array.from({ length: COUNT }, (_, i) => `Pager ${i}`));
    expect(pager.env()).toBe('FRX|-c');
  });

  it('gets every page of query --all, and a record’s details', async () => {
    const all = filePager();
    expect((await withPager(['accounts', 'query', '--all', '--page-size', '5', '--fields', 'lastname'], { env: { SVC_PAGER: all.command } })).stdout).toBe('');
    expect(all.paged()?.trimEnd().split('\n')).toHaveLength(COUNT + 1);
    const one = filePager();
    const first = (await run(['accounts', 'query', '--limit', '1', '--fields', 'ID'])).stdout;
    const id = String((JSON.parse(first) as { ID: number }[])[0]?.ID);
    expect((await withPager(['accounts', 'get', id], { env: { PAGER: one.command } })).stdout).toBe('');
    expect(one.paged()).toMatch(/^lastname:\s+Pager 0$/m);
  });

  it('is $SVC_PAGER over $PAGER', async () => {
    const chosen = filePager();
    const other = filePager();
    await withPager(['accounts', 'query'], { env: { SVC_PAGER: chosen.command, PAGER: other.command } });
    expect(chosen.paged()).toMatch(/^ID/);
    expect(other.paged()).toBeUndefined();
  });

  it('is off with --no-pager, PAGER=cat, an empty PAGER or SVC_PAGER: the table goes to the terminal', async () => {
    const unused = [filePager(), filePager()];
    const cases: [string[], Record<string, string>][] = [
      [['--no-pager'], { SVC_PAGER: unused[0]?.command ?? '' }],
      [[], { PAGER: 'cat' }],
      [[], { PAGER: '' }],
      [[], { SVC_PAGER: '', PAGER: unused[1]?.command ?? '' }],
    ];
    for (const [flags, env] of cases) {
      const r = await withPager([...flags, 'accounts', 'query', '--fields', 'lastname'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.split('\n')[1]).toBe('Pager 0');
    }
    expect(unused.map((p) => p.paged())).toEqual([undefined, undefined]);
  });

  it('never pages a pipe, JSON, CSV, text, or an export, even with a pager set', async () => {
    const pager = filePager();
    const env = { SVC_PAGER: pager.command };
    const piped = await run(['accounts', 'query', '-o', 'table'], { env, processes: { ...testProcesses(), spawnPager: processControl().spawnPager } });
    expect(piped.stdout).toMatch(/^ID\s+LASTNAME/);
    expect(JSON.parse((await withPager(['accounts', 'query', '-o', 'json'], { env })).stdout)).toHaveLength(COUNT);
    expect((await withPager(['accounts', 'query', '-o', 'csv', '--fields', 'lastname'], { env })).stdout.split('\n')[1]).toBe('Pager 0');
    expect((await withPager(['accounts', 'count'], { env })).stdout).toBe(`${COUNT}\n`);
    expect((await withPager(['accounts', 'export', '-o', 'csv', '--fields', 'lastname'], { env })).stdout.split('\n')).toHaveLength(COUNT + 2);
    expect(pager.paged()).toBeUndefined();
  });

  it('that cannot be started leaves the table on the terminal', async () => {
    const r = await withPager(['accounts', 'query', '--fields', 'lastname'], { env: { SVC_PAGER: join(dir, 'no-such-pager') } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')[1]).toBe('Pager 0');
    const unbalanced = await withPager(['accounts', 'query', '--fields', 'lastname'], { env: { PAGER: "less '" } });
    expect(unbalanced.stdout.split('\n')[1]).toBe('Pager 0');
  });
});

describe('the built svc on a terminal', () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const hasScript = spawnSync('script', ['--version']).status === 0;

  /** Runs the built svc on a pseudo-terminal made by util-linux's script; what the terminal showed. */
  const onTerminal = (args: string[], env: Record<string, string>): Promise<{ code: number | null; screen: string }> =>
    new Promise((resolve) => {
      const command = ['node', 'bin/svc.js', ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
      const child = execFile(
        'script',
        ['-qec', command, '/dev/null'],
        {
          cwd: root,
          encoding: 'utf8',
          timeout: 30_000,
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', SHELL: '/bin/sh', TERM: 'dumb', SVC_CONFIG_DIR: tempConfigDir(), SVC_URL: sandbox().instanceUrl, SVC_TOKEN: sandbox().token(), ...env },
        },
        (_err, stdout) => resolve({ code: child.exitCode, screen: stdout.replace(/\r\n/g, '\n') }),
      );
      child.stdin?.end();
    });

  it('pages a table through the pager process and waits for it', async (ctx) => {
    if (!hasScript) ctx.skip('util-linux script is not installed: no pseudo-terminal to run svc on');
    expect(existsSync(`${root}dist/svc.cjs`), 'dist/svc.cjs is missing: run `npm run build`').toBe(true);
    const pager = filePager();
    const r = await onTerminal(['accounts', 'query', '--fields', 'lastname'], { SVC_PAGER: pager.command });
    expect(r.code).toBe(0);
    expect(r.screen).toBe('');
    expect(pager.paged()?.split('\n')[1]).toBe('Pager 0');
  });

  it('writes the table itself when the pager cannot start, and never pages --no-pager', async (ctx) => {
    if (!hasScript) ctx.skip('util-linux script is not installed: no pseudo-terminal to run svc on');
    const missing = await onTerminal(['accounts', 'query', '--fields', 'lastname'], { SVC_PAGER: join(dir, 'missing') });
    expect(missing.code).toBe(0);
    expect(missing.screen.split('\n')[1]).toBe('Pager 0');
    const pager = filePager();
    const off = await onTerminal(['--no-pager', 'accounts', 'query', '--fields', 'lastname'], { SVC_PAGER: pager.command });
    expect(off.screen.split('\n')[1]).toBe('Pager 0');
    expect(pager.paged()).toBeUndefined();
  });
});
