/**
 * s8-out: the pager (README, Paging) given hostile PAGER / SVC_PAGER values,
 * and colour on and off (README, Output: "use colour only on a terminal,
 * never with NO_COLOR set, --no-color, or TERM=dumb"). In-process with the
 * real pager spawner of src/cli/main.ts, as test/cli/pager.test.ts does.
 *
 * Tests named "HELD: …" are claims that held; "OBSERVATION: …" record
 * behaviour without judging it.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processControl } from '../../src/cli/main.js';
import { prepareInsert } from '../../src/sandbox/data/store.js';
import { sandboxCli, testProcesses, type SandboxRunOptions } from '../helpers/cli.js';

const { sandbox, run } = sandboxCli({ seedAccounts: 0 });
const dir = mkdtempSync(join(tmpdir(), 's8-out-pager-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const COUNT = 2000; // a table far larger than a pipe's buffer (about 100 KB)

beforeAll(() => {
  const insert = prepareInsert(sandbox().sandbox.db, 'demo', 'accounts', ['lastname', 'currency', 'creationdate', 'lastmodified']);
  sandbox().sandbox.db.transaction(() => {
    for (let i = 0; i < COUNT; i++) insert([`Pager ${String(i).padStart(4, '0')} ${'x'.repeat(30)}`, 'EUR', 0, 0]);
  })();
});

/** svc in-process on a terminal with a process control that starts a real pager (main.ts's). */
const withPager = (argv: string[], o: SandboxRunOptions = {}) =>
  run(argv, { tty: true, columns: 100, ...o, processes: { ...testProcesses(), spawnPager: processControl().spawnPager } });

const ALL = ['accounts', 'query', '--all', '--fields', 'ID,lastname'];

describe('hostile pagers', () => {
  it('HELD: shell syntax in PAGER runs no shell: `nosuch; touch F`, `$(touch F)` and backquotes start nothing, the table goes to the terminal', async () => {
    const marks = [join(dir, 'semi'), join(dir, 'subst'), join(dir, 'tick')];
    for (const pager of [`nosuchpager-s8; touch ${marks[0]}`, `$(touch ${marks[1]})`, `\`touch ${marks[2]}\``]) {
      const r = await withPager(['accounts', 'query', '--limit', '3', '--fields', 'lastname'], { env: { PAGER: pager } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.split('\n')[1]).toMatch(/^Pager 0000/);
    }
    expect(marks.map((m) => existsSync(m))).toEqual([false, false, false]);
  });

  it('HELD: a pager that exits at once without reading (true), or after 10 bytes (head -c 10), ends svc with exit 0 and nothing on stderr', async () => {
    for (const pager of ['true', `sh -c 'head -c 10 > /dev/null'`]) {
      const r = await withPager(ALL, { env: { SVC_PAGER: pager } });
      expect({ code: r.code, stderr: r.stderr, stdout: r.stdout }, pager).toEqual({ code: 0, stderr: '', stdout: '' });
    }
  });

  it('HELD: a pager whose path holds blanks and quotes, quoted as a shell would, gets the table', async () => {
    const sub = join(dir, "with space's \"dir\"");
    mkdirSync(sub, { recursive: true });
    const script = join(sub, 'my pager');
    const out = join(sub, 'paged');
    writeFileSync(script, `#!/bin/sh\ncat > "$1"\n`);
    chmodSync(script, 0o755);
    const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
    const r = await withPager(ALL, { env: { SVC_PAGER: `${quote(script)} ${quote(out)}` } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(readFileSync(out, 'utf8').trimEnd().split('\n')).toHaveLength(COUNT + 1);
  });

  it('HELD: a pager that is a directory, or a file that is not executable, is skipped: the table goes to the terminal', async () => {
    const plain = join(dir, 'not-executable');
    writeFileSync(plain, 'cat\n');
    for (const pager of [dir, plain]) {
      const r = await withPager(['accounts', 'query', '--limit', '3', '--fields', 'lastname'], { env: { PAGER: pager } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^svc: showing 3 of 2,000 accounts/);
      expect(r.stdout.split('\n')[1]).toMatch(/^Pager 0000/);
    }
  });

  it('HELD: a pager that fails (exit 3 after reading) leaves svc at exit 0: the table was shown', async () => {
    const r = await withPager(ALL, { env: { PAGER: `sh -c 'cat > /dev/null; exit 3'` } });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  });
});

describe('colour', () => {
  const BOLD = '\u001b[1m';
  const table = (env: Record<string, string | undefined>, flags: string[] = [], tty = true) =>
    run([...flags, '--no-pager', 'accounts', 'query', '--limit', '2', '--fields', 'ID,lastname', ...(tty ? [] : ['-o', 'table'])], { tty, env: { NO_COLOR: undefined, ...env } });

  it('HELD: a bold header on a terminal; none with NO_COLOR=1, --no-color or TERM=dumb; an empty NO_COLOR is unset (no-color.org)', async () => {
    expect((await table({})).stdout).toContain(BOLD);
    expect((await table({ NO_COLOR: '' })).stdout).toContain(BOLD);
    expect((await table({ NO_COLOR: '1' })).stdout).not.toContain('\u001b');
    expect((await table({ TERM: 'dumb' })).stdout).not.toContain('\u001b');
    expect((await table({}, ['--no-color'])).stdout).not.toContain('\u001b');
  });

  it('HELD: never in a pipe, even with FORCE_COLOR=1 or CLICOLOR_FORCE=1', async () => {
    expect((await table({ FORCE_COLOR: '1', CLICOLOR_FORCE: '1' }, [], false)).stdout).not.toContain('\u001b');
  });

  it('OBSERVATION: FORCE_COLOR=0 and CLICOLOR=0 (conventions gh and chalk honour) do not turn colour off on a terminal; README promises neither', async () => {
    expect((await table({ FORCE_COLOR: '0' })).stdout).toContain(BOLD);
    expect((await table({ CLICOLOR: '0' })).stdout).toContain(BOLD);
  });
});
