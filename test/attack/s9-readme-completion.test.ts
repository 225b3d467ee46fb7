/**
 * s9-readme: README § Shell completion: "They complete commands, verbs and
 * their aliases (`list` as `query`), each command's own flags, resource names,
 * field names (…) and output formats, alike in all three shells; a free value
 * (`--filter <TAB>`) gets no suggestions."
 *
 * `-o <TAB>` offers table json ndjson csv tsv everywhere, but export's own
 * output format, `--format <TAB>` (csv ndjson json parquet), and its
 * `--compression <TAB>` (gzip none) offer nothing; and `export -o <TAB>` offers
 * table and tsv, which export refuses, but not parquet. bash and zsh share one
 * function (zsh through bashcompinit), so bash stands for both.
 *
 * Tests named "HELD: …" are claims that held; the others fail today.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** What bash completes for these words (the last is the word being completed). */
function bashComplete(words: string[]): string[] {
  const script = `source completions/svc.bash; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=\${#COMP_LINE}; _svc; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['-c', script, '_', ...words], { cwd: root, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter(Boolean).sort();
}

describe('README § Shell completion: "… and output formats"', () => {
  it('HELD: svc -o <TAB> and svc accounts query -o <TAB> offer the five output formats', () => {
    expect(bashComplete(['svc', '-o', ''])).toEqual(['csv', 'json', 'ndjson', 'table', 'tsv']);
    expect(bashComplete(['svc', 'accounts', 'query', '-o', ''])).toEqual(['csv', 'json', 'ndjson', 'table', 'tsv']);
  });

  it('svc accounts export --format <TAB> offers csv, json, ndjson, parquet (today nothing)', () => {
    expect(bashComplete(['svc', 'accounts', 'export', '--format', ''])).toEqual(['csv', 'json', 'ndjson', 'parquet']);
  });

  it('svc accounts import --format <TAB> offers csv, json, ndjson (today nothing)', () => {
    expect(bashComplete(['svc', 'accounts', 'import', '--format', ''])).toEqual(['csv', 'json', 'ndjson']);
  });

  it('svc accounts export --compression <TAB> offers gzip and none (today nothing)', () => {
    expect(bashComplete(['svc', 'accounts', 'export', '--compression', ''])).toEqual(['gzip', 'none']);
  });

  it('svc accounts export -o <TAB> offers no format export refuses (today table and tsv: "export needs a format")', () => {
    const offered = bashComplete(['svc', 'accounts', 'export', '-o', '']);
    expect(offered).not.toContain('table');
    expect(offered).not.toContain('tsv');
  });
});
