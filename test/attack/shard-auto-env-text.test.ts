/**
 * `--shard auto/N` with a hostile job-array variable (a terminal escape, a
 * newline, a huge value): the usage error stays one short line with control
 * characters shown as '?', never writing the variable's raw bytes to stderr.
 * Also through the CLI: exit 2, nothing on stdout, nothing sent.
 */
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { resolveShard } from '../../src/export/shard-auto.js';
import { sandboxCli } from '../helpers/cli.js';

const { run } = sandboxCli();

const hostile = ['1\n--shard 1/1', '\u001b[31mred\u001b[0m', 'x'.repeat(100_000), '2\u2028x', '\r3\u0007x'];

describe('--shard auto/N: hostile variable text', () => {
  it.each(['JOB_COMPLETION_INDEX', 'SLURM_ARRAY_TASK_ID', 'AWS_BATCH_JOB_ARRAY_INDEX', 'SLURM_ARRAY_TASK_MIN', 'SLURM_ARRAY_TASK_STEP'])('%s', (name) => {
    for (const value of hostile) {
      const env: Record<string, string> = name.startsWith('SLURM_ARRAY_TASK_') && name !== 'SLURM_ARRAY_TASK_ID' ? { SLURM_ARRAY_TASK_ID: '1', [name]: value } : { [name]: value };
      let err: unknown;
      try {
        resolveShard('auto/4', env);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(UsageError);
      const message = (err as Error).message;
      expect(message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
      expect(message.length).toBeLessThan(400);
    }
  });

  it('the --shard text itself', () => {
    expect(() => resolveShard('auto/\u001b[2J4', {})).toThrow(UsageError);
    try {
      resolveShard('9/\n4', {});
    } catch (e) {
      expect((e as Error).message).not.toMatch(/[\u0000-\u001f]/);
    }
  });

  it('through the CLI: exit 2, one line', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'svc-attack-')), 'a.parquet');
    const r = await run(['accounts', 'export', '--format', 'parquet', '--output-file', out, '--shard', 'auto/4'], { env: { JOB_COMPLETION_INDEX: '1\nsvc: fake second line\u001b[31m' } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toContain('\u001b');
  });
});
