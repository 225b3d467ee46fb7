/**
 * s8-r2-out: shell completion after d4d9f76 ("fish completes as bash does").
 * README, Shell completion: "They complete commands, verbs, each command's own
 * flags, …, alike in all three shells"; README, Using svc: "`query` (alias
 * `list`)". bash and zsh share one function (zsh through bashcompinit), so
 * bash stands for both here; fish is asked with `complete -C`.
 *
 * Tests named "HELD: …" are claims that held; the others fail today.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const has = (shell: string): boolean => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

/** What bash completes for these words (the last is the word being completed). */
function bashComplete(words: string[]): string[] {
  const script = `source completions/svc.bash; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _svc; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['-c', script, '_', ...words], { cwd: root, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter(Boolean).sort();
}

/** What fish completes for a command line, many at once (one fish). */
function fishCompleteAll(lines: string[]): string[][] {
  const script = 'source completions/svc.fish; for l in $argv; complete -C $l; echo "@@END@@"; end';
  const r = spawnSync('fish', ['-c', script, ...lines], { cwd: root, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  const parts = r.stdout.split('@@END@@\n');
  return lines.map((_, i) =>
    (parts[i] ?? '')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t')[0] ?? '')
      .sort(),
  );
}

describe('the alias list completes as query does', () => {
  it('bash (and zsh): svc accounts list --fi<TAB> offers query\'s --filter, --fields …, not nothing', () => {
    const query = bashComplete(['svc', 'accounts', 'query', '--fi']);
    expect(query, 'HELD for query').toEqual(['--fields', '--filter', '--filter-file', '--filter-json']);
    expect(bashComplete(['svc', 'accounts', 'list', '--fi'])).toEqual(query);
    expect(bashComplete(['svc', 'accounts', 'list', '--'])).toEqual(bashComplete(['svc', 'accounts', 'query', '--']));
  });

  it.skipIf(!has('fish'))('fish: svc accounts list --fi<TAB> offers query\'s flags (today only the global --ca-file, --profile, --token-file, by fuzzy match)', () => {
    const [query, list] = fishCompleteAll(['svc accounts query --fi', 'svc accounts list --fi']);
    expect(list).toEqual(query);
  });
});

describe.skipIf(!has('fish'))('HELD: fish and bash agree (skipped without fish)', () => {
  // Lines as typed; the bash words are the same split on blanks (quotes left out: bash keeps them in COMP_WORDS).
  const lines = [
    'svc ',
    'svc acc',
    'svc accounts ',
    'svc accounts q',
    'svc accounts query --',
    'svc accounts query --fi',
    'svc accounts describe ',
    'svc accounts describe cur',
    'svc describe accounts.ty',
    'svc describe acc',
    'svc -o ',
    'svc --profile p accounts ',
    'svc --profile accounts ',
    'svc --output json accounts ',
    'svc --output=json accounts ',
    'svc accounts query --output=json --',
    'svc accounts query --filter x ',
    'svc accounts query --filter=x ',
    'svc accounts query --jq=. --',
    'svc accounts query --limit 5 --',
    'svc accounts query -- --',
    'svc -- accounts ',
    'svc -v accounts ',
    'svc help ',
    'svc completion ',
    'svc sandbox start --',
    'svc sandbox start --data-dir accounts ',
    'svc api --',
    'svc resources ',
    'svc resources query --',
    'svc auth ',
    'svc accounts export -o ',
    'svc accounts export --output x.csv --',
    'svc accounts watch --cursor-file x --',
    'svc users describe ',
  ];

  it('HELD: the same candidates for 35 command lines (families, verbs, flags, values, --, option=value, globals before the family)', () => {
    const fish = fishCompleteAll(lines);
    lines.forEach((line, i) => {
      const words = line.split(' ');
      expect(fish[i], line).toEqual(bashComplete(words));
    });
  });

  it('HELD: sourcing completions/svc.fish and completing 20 lines takes well under a second (no quadratic load)', () => {
    const t0 = performance.now();
    const r = spawnSync('fish', ['-c', 'source completions/svc.fish; for i in (seq 20); complete -C "svc accounts query --filter x --fields ID --sort ID --limit 5 --jq . --" >/dev/null; end'], { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});
