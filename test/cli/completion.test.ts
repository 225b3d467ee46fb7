import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { completionHints } from '../../src/cli/commands/completion.js';
import { buildProgram } from '../../src/cli/program.js';
import { completionFiles, renderCompletion, shells } from '../../src/gen/completions.js';
import { inertDeps } from '../../src/gen/completions-main.js';
import { svc } from '../helpers/deps.js';

const dir = new URL('../../completions/', import.meta.url);

/** Asks a real bash what it would complete for these words. */
function bashComplete(words: string[]): string[] {
  const quoted = words.map((w) => `'${w}'`).join(' ');
  const script = `source completions/svc.bash; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _svc; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['-c', script], { cwd: new URL('../../', import.meta.url), encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter(Boolean);
}

describe('shell completion', () => {
  it('keeps completions/ equal to a fresh render of the command tree (run `npm run gen`)', () => {
    const program = buildProgram(inertDeps());
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
    expect(bashComplete(['svc', 'accounts', ''])).toEqual(['describe']);
    expect(bashComplete(['svc', 'accounts', 'describe', 'cur'])).toEqual(['currency']);
    expect(bashComplete(['svc', 'describe', 'accounts.ty'])).toEqual(['accounts.type']);
    expect(bashComplete(['svc', 'resources', '-o', ''])).toEqual(['table', 'json', 'ndjson', 'csv']);
    expect(bashComplete(['svc', '-o', 'json', 'accounts', 'd'])).toEqual(['describe']);
    expect(bashComplete(['svc', 'describe', '--ou'])).toEqual(['--output']);
  });
});
