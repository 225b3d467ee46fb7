import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { completionHints } from '../../src/cli/completion-view.js';
import { fullTree } from '../../src/cli/program.js';
import { completionFiles, renderCompletion, shells } from '../../src/gen/completions.js';
import { inertDeps } from '../../src/cli/inert-deps.js';
import { parquetCompressions } from '../../src/commands/records/export/options.js';
import { exportFormats } from '../../src/export/plan.js';
import { importFormats } from '../../src/import/formats.js';
import { outputFormats } from '../../src/output/format.js';
import { svc } from '../helpers/cli.js';

const dir = new URL('../../completions/', import.meta.url);

/** Asks a real bash what it would complete for these words. */
function bashComplete(words: string[], cwd?: string): string[] {
  const quoted = words.map((w) => `'${w}'`).join(' ');
  const script = `source ${JSON.stringify(new URL('svc.bash', dir).pathname)}; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _svc; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['-c', script], { cwd: cwd ?? root, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter(Boolean);
}

/** Whether a shell is installed; CI installs zsh and fish (.ci/run), so there it must be. */
function hasShell(name: string): boolean {
  const found = spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;
  if (!found && process.env.CI) throw new Error(`${name} is missing: .ci/run must install it`);
  return found;
}

const root = new URL('../../', import.meta.url);

/** A directory holding two files (one name with a space) and two directories, to complete paths in. */
/** Command lines whose option values depend on the command (export's and import's formats, export's codecs), with what each offers. */
const valueLines: readonly (readonly [string, readonly string[]])[] = [
  ['svc accounts export --format ', exportFormats],
  ['svc accounts export --format p', ['parquet']],
  ['svc accounts export -o ', exportFormats],
  ['svc accounts export --output nd', ['ndjson']],
  ['svc users export --format ', exportFormats],
  ['svc -o json accounts export --format ', exportFormats],
  ['svc accounts export --compression ', parquetCompressions],
  ['svc accounts export --format parquet --compression n', ['none']],
  ['svc accounts import --format ', importFormats],
  ['svc accounts import --from x.csv --format j', ['json']],
  ['svc accounts import -o ', outputFormats],
  ['svc accounts query -o ', outputFormats],
  ['svc -o ', outputFormats],
  ['svc accounts query --format ', []],
  ['svc accounts export --format csv --comp', ['--compression']],
  ['svc accounts export --format csv ', []],
];

function pathsDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'svc-completion-'));
  writeFileSync(join(d, 'rows 1.csv'), '');
  writeFileSync(join(d, 'copy.sqlite'), '');
  mkdirSync(join(d, 'data'));
  mkdirSync(join(d, 'old data'));
  return d;
}

describe('shell completion', () => {
  it('keeps completions/ equal to a fresh render of the command tree (run `npm run gen`)', () => {
    const program = fullTree(inertDeps());
    for (const shell of shells) {
      const committed = readFileSync(new URL(completionFiles[shell], dir), 'utf8');
      expect(committed === renderCompletion(shell, program, completionHints(program)), `completions/${completionFiles[shell]} is stale`).toBe(true);
    }
  });

  it('prints the same script with svc completion <shell>', async () => {
    const r = await svc(['completion', 'bash']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(new URL('svc.bash', dir), 'utf8'));
    const bad = await svc(['completion', 'bsh']);
    expect(bad).toEqual({ code: 2, stdout: '', stderr: "svc: unknown shell 'bsh'; did you mean 'bash'? (choose bash, zsh, fish)\n" });
  });

  it('completes commands, verbs, fields, formats and global flags in bash', () => {
    expect(bashComplete(['svc', 'acc'])).toEqual(['accounts']);
    expect(bashComplete(['svc', 'accounts', ''])).toEqual(['query', 'list', 'count', 'sum', 'export', 'watch', 'sync', 'get', 'exists', 'describe', 'create', 'update', 'delete', 'import']);
    expect(bashComplete(['svc', 'users', ''])).toEqual(['query', 'list', 'count', 'sum', 'export', 'watch', 'sync', 'get', 'exists', 'describe']);
    expect(bashComplete(['svc', 'accounts', 'describe', 'cur'])).toEqual(['currency']);
    expect(bashComplete(['svc', 'describe', 'accounts.ty'])).toEqual(['accounts.type']);
    expect(bashComplete(['svc', 'resources', '-o', ''])).toEqual(['table', 'json', 'ndjson', 'csv', 'tsv']);
    expect(bashComplete(['svc', '-o', 'json', 'accounts', 'de'])).toEqual(['describe', 'delete']);
    expect(bashComplete(['svc', 'describe', '--ou'])).toEqual(['--output']);
  });

  it('completes an alias (list, of query) as its command: words, flags and values', () => {
    expect(bashComplete(['svc', 'accounts', 'li'])).toEqual(['list']);
    expect(bashComplete(['svc', 'accounts', 'list', '--fi'])).toEqual(bashComplete(['svc', 'accounts', 'query', '--fi']));
    expect(bashComplete(['svc', 'resources', 'list', '--'])).toEqual(bashComplete(['svc', 'resources', 'query', '--']));
    expect(bashComplete(['svc', 'accounts', 'list', '--filter', ''])).toEqual([]);
    // profile list is a command of its own, not an alias
    expect(bashComplete(['svc', 'profile', 'list', '--'])).not.toContain('--filter');
  });

  it('offers nothing for the free value of an option (--filter, --profile) in bash', () => {
    expect(bashComplete(['svc', 'accounts', 'query', '--filter', ''])).toEqual([]);
    expect(bashComplete(['svc', '--profile', ''])).toEqual([]);
    expect(bashComplete(['svc', 'describe', '--jq', 'acc'])).toEqual([]);
    expect(bashComplete(['svc', '--profile', 'p', 'acc'])).toEqual(['accounts']);
    expect(bashComplete(['svc', 'accounts', 'query', '--fields', '--fil'])).toEqual(['--filter', '--filter-json', '--filter-file']);
  });

  it("offers an option's values by the command: export's and import's own formats, export's codecs, in bash", () => {
    for (const [line, offered] of valueLines) expect(bashComplete(line.split(' ')).sort(), line).toEqual([...offered].sort());
    // The lists are the ones the commands check their input against.
    expect([...exportFormats].sort()).toEqual(['csv', 'json', 'ndjson', 'parquet']);
    expect([...importFormats].sort()).toEqual(['csv', 'json', 'ndjson']);
    expect([...parquetCompressions].sort()).toEqual(['gzip', 'none']);
  });

  it('offers file names after an option that takes a file, and directories after --data-dir, in bash', () => {
    const d = pathsDir();
    expect(bashComplete(['svc', 'accounts', 'import', '--from', ''], d).sort()).toEqual(['copy.sqlite', 'data', 'old data', 'rows 1.csv']);
    expect(bashComplete(['svc', 'accounts', 'import', '--from', 'ro'], d)).toEqual(['rows 1.csv']);
    expect(bashComplete(['svc', 'sync', '--into', 'c'], d)).toEqual(['copy.sqlite']);
    expect(bashComplete(['svc', '--token-file', 'r'], d)).toEqual(['rows 1.csv']);
    expect(bashComplete(['svc', 'sandbox', 'start', '--data-dir', ''], d).sort()).toEqual(['data', 'old data']);
    // After the path, the command's words again.
    expect(bashComplete(['svc', 'accounts', 'import', '--from', 'rows', '--conc'], d)).toEqual(['--concurrency']);
    // Free text stays free: no file names after --filter.
    expect(bashComplete(['svc', 'accounts', 'query', '--filter', ''], d)).toEqual([]);
  });
});

describe.skipIf(!hasShell('fish'))('fish completion (skipped when fish is not installed, outside CI)', () => {
  function fishComplete(line: string, cwd?: string): string[] {
    const r = spawnSync('fish', ['-c', `source ${JSON.stringify(new URL('svc.fish', dir).pathname)}; complete -C ${JSON.stringify(line)}`], { cwd: cwd ?? root, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    return r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0] ?? '');
  }

  it('completes commands, verbs, formats, field paths and flags', () => {
    expect(fishComplete('svc acc')).toEqual(['accounts']);
    expect(fishComplete('svc accounts ').sort()).toEqual(['count', 'create', 'delete', 'describe', 'exists', 'export', 'get', 'import', 'list', 'query', 'sum', 'sync', 'update', 'watch']);
    expect(fishComplete('svc -o ')).toEqual(['csv', 'json', 'ndjson', 'table', 'tsv']);
    expect(fishComplete('svc describe accounts.ty')).toEqual(['accounts.type']);
    expect(fishComplete('svc --no')).toEqual(['--no-color', '--no-header', '--no-pager']);
  });

  it('completes by the whole command path, as bash does', () => {
    const lines = [
      'svc users describe ',
      'svc users describe cur',
      'svc accounts describe cur',
      'svc accounts ',
      'svc -o json accounts de',
      'svc --profile p users ',
      'svc accounts query ',
      'svc accounts get ',
      'svc accounts query --fi',
      'svc accounts list --fi',
      'svc accounts list --filter x --li',
      'svc accounts li',
      'svc accounts query --filter ',
      'svc accounts query --filter x --li',
      'svc auth ',
      'svc auth login --us',
      'svc help ',
      'svc --profile ',
      'svc ',
    ];
    for (const line of lines) {
      const words = line.split(' ');
      expect(fishComplete(line).sort(), line).toEqual(bashComplete(words).sort());
    }
    expect(fishComplete('svc accounts query --fi').sort()).toEqual(['--fields', '--filter', '--filter-file', '--filter-json']);
    expect(fishComplete('svc auth login --us')).toEqual(['--user']);
    const d = pathsDir();
    expect(fishComplete('svc accounts import --from ', d).sort()).toEqual(['copy.sqlite', 'data/', 'old data/', 'rows 1.csv']);
    expect(fishComplete('svc sandbox start --data-dir ', d).sort()).toEqual(['data/', 'old data/']);
    expect(fishComplete('svc accounts query --filter ', d)).toEqual([]);
    expect(fishComplete('svc accounts list --fi').sort()).toEqual(['--fields', '--filter', '--filter-file', '--filter-json']);
  });

  it("offers an option's values by the command, as bash does", () => {
    for (const [line, offered] of valueLines) expect(fishComplete(line).sort(), line).toEqual([...offered].sort());
  });
});

describe.skipIf(!hasShell('zsh'))('zsh completion (skipped when zsh is not installed, outside CI)', () => {
  it('parses in zsh and carries the bash completion through bashcompinit', () => {
    const r = spawnSync('zsh', ['-n', 'completions/_svc'], { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(0);
    const zsh = readFileSync(new URL('_svc', dir), 'utf8');
    const bash = readFileSync(new URL('svc.bash', dir), 'utf8');
    expect(zsh.startsWith('#compdef svc\n')).toBe(true);
    expect(zsh).toContain('bashcompinit');
    expect(zsh.endsWith(bash.split('\n').slice(2).join('\n'))).toBe(true);
  });

  it('completes as bash does when zsh runs it through bashcompinit', () => {
    // _bash_complete as a zsh completion widget calls it; compadd, which only a widget has, prints what it is given.
    const script = [
      'compdef() { :; }',
      `source ${new URL('_svc', dir).pathname}`,
      'compadd() { local x; for x in "${@[${@[(i)-]}+1,-1]}"; do [[ $x == ${words[CURRENT]}* ]] && print -r -- $x; done; return 0 }',
      'words=("$@"); CURRENT=$#',
      '_bash_complete -F _svc',
    ].join('\n');
    const zshComplete = (words: string[], cwd?: string): string[] => {
      const r = spawnSync('zsh', ['-f', '-c', script, 'zsh', ...words], { cwd: cwd ?? root, encoding: 'utf8' });
      expect(r.stderr).toBe('');
      return r.stdout.split('\n').filter(Boolean);
    };
    for (const words of [
      ['svc', 'users', 'describe', ''],
      ['svc', 'users', 'describe', 'cur'],
      ['svc', 'accounts', 'describe', 'cur'],
      ['svc', 'accounts', 'query', ''],
      ['svc', 'accounts', 'query', '--fi'],
      ['svc', 'accounts', 'list', '--fi'],
      ['svc', 'accounts', 'query', '--filter', ''],
      ['svc', '-o', ''],
      ['svc', 'describe', 'accounts.ty'],
    ]) {
      expect(zshComplete(words), words.join(' ')).toEqual(bashComplete(words));
    }
    expect(zshComplete(['svc', 'users', 'describe', 'e'])).toEqual(['email', 'expdate']);
    for (const [line, offered] of valueLines) expect(zshComplete(line.split(' ')).sort(), line).toEqual([...offered].sort());
    const d = pathsDir();
    expect(zshComplete(['svc', 'accounts', 'import', '--from', 'ro'], d)).toEqual(['rows 1.csv']);
    expect(zshComplete(['svc', 'sandbox', 'start', '--data-dir', ''], d).sort()).toEqual(['data', 'old data']);
  });
});
