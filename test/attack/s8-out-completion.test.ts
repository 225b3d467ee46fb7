/**
 * s8-out: shell completion (README, Shell completion: "They complete commands,
 * verbs, resource names, field names (`svc accounts describe cur<TAB>`, …) and
 * output formats"), asked of real bash and fish the way test/cli/completion.test.ts
 * does, and hostile words on the command line being completed.
 *
 * Tests named "HELD: …" are claims that held; the others fail today.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { svc, tempConfigDir } from '../helpers/cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 's8-out-completion-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const has = (shell: string): boolean => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

/** What bash completes for these words (the last is the word being completed). */
function bashComplete(words: string[]): string[] {
  const script = `source completions/svc.bash; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _svc; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['-c', script, '_', ...words], { cwd: root, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter(Boolean);
}

/** What fish completes for a command line. */
function fishComplete(line: string): string[] {
  const r = spawnSync('fish', ['-c', 'source completions/svc.fish; complete -C $argv[1]', line], { cwd: root, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0] ?? '');
}

const USERS_FIELDS = ['ID', 'creator', 'creationdate', 'lastmodified', 'contact', 'activity', 'name', 'email', 'nopublic', 'apionly', 'expdate'];

describe('HELD: bash completes by the catalogue, and runs nothing a word holds', () => {
  it('a family’s describe completes that family’s fields only', () => {
    expect(bashComplete(['svc', 'users', 'describe', '']).sort()).toEqual([...USERS_FIELDS].sort());
    expect(bashComplete(['svc', 'users', 'describe', 'cur'])).toEqual([]);
    expect(bashComplete(['svc', 'accounts', 'query', ''])).toEqual([]);
  });

  it('$(…) and `…` in earlier words or in the word being completed are not run', () => {
    const marks = ['a', 'b', 'c', 'd'].map((m) => join(dir, m));
    bashComplete(['svc', `$(touch ${marks[0]})`, `\`touch ${marks[1]}\``, `$(touch ${marks[2]})`]);
    bashComplete(['svc', 'describe', `acc\`touch ${marks[3]}\``]);
    bashComplete(['svc', '-o', `$(touch ${marks[3]})`]);
    expect(marks.map((m) => existsSync(m))).toEqual([false, false, false, false]);
  });

  it('the scripts are static: a profile of any name changes nothing svc completion prints', async () => {
    const configDir = tempConfigDir();
    await svc(['profile', 'add', 'p-$(touch-x)', '--url', 'http://127.0.0.1:9/demo'], { configDir });
    await svc(['profile', 'add', "o'q", '--url', 'http://127.0.0.1:9/demo'], { configDir });
    for (const [shell, file] of [['bash', 'svc.bash'], ['zsh', '_svc'], ['fish', 'svc.fish']] as const) {
      const r = await svc(['completion', shell], { configDir });
      expect(r.code).toBe(0);
      expect(r.stdout === readFileSync(join(root, 'completions', file), 'utf8'), shell).toBe(true);
    }
  });
});

describe.skipIf(!has('fish'))('fish completes as bash does (skipped without fish)', () => {
  it('svc users describe <TAB> offers the fields of users, not every family’s fields and paths', () => {
    const got = fishComplete('svc users describe ');
    expect(got.sort()).toEqual([...USERS_FIELDS].sort());
  });

  it('svc users describe cur<TAB> offers nothing (users has no currency; `svc users describe currency` is exit 2)', () => {
    expect(fishComplete('svc users describe cur')).toEqual([]);
  });

  it('after a verb (svc accounts query <TAB>, svc accounts get <TAB>) the verbs are not offered again', () => {
    expect(fishComplete('svc accounts query ')).not.toContain('count');
    expect(fishComplete('svc accounts get ')).not.toContain('delete');
  });

  it('svc accounts query --fi<TAB> offers the verb’s flags, as bash does', () => {
    expect(bashComplete(['svc', 'accounts', 'query', '--fi'])).toEqual(['--filter', '--filter-json', '--filter-file', '--fields']);
    expect(fishComplete('svc accounts query --fi').sort()).toEqual(['--fields', '--filter', '--filter-file', '--filter-json']);
  });

  it('HELD: a word holding $(…) is completed as text, nothing is run', () => {
    const mark = join(dir, 'fish');
    fishComplete(`svc describe acc$(touch ${mark})`);
    fishComplete(`svc $(touch ${mark}) `);
    expect(existsSync(mark)).toBe(false);
  });
});

describe.skipIf(!has('zsh'))('HELD: zsh (skipped without zsh)', () => {
  it('svc completion zsh parses in zsh -n', () => {
    const file = join(dir, '_svc');
    const r = spawnSync('sh', ['-c', `node bin/svc.js completion zsh > '${file}' && zsh -n '${file}'`], { cwd: root, encoding: 'utf8' });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  });
});
