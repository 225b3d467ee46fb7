/**
 * The command lines svc shows about a checkpoint, a cursor file's lock and a
 * sync copy's remembered filter: every flag that ties them to their run is
 * shown, quoted as a POSIX shell reads it back, so two runs that differ never
 * read alike and a line can be pasted into a shell as it is.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { onRequest, tempDir } from '../export/support.js';

const { sandbox, run } = sandboxCli();

/** The words a POSIX shell makes of `text`. */
function shellWords(text: string): string[] {
  const out = execFileSync('sh', ['-c', `for w in ${text}; do printf '%s\\0' "$w"; done`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

/** An export to `file` stopped by failing pages once its first page was answered. */
async function failedAfterFirstPage(file: string, flags: string[]): Promise<void> {
  const s = sandbox();
  const stop = onRequest(s, '/api/v1/accounts', (n) => {
    if (n === 1) s.sandbox.hooks.failNext({ path: '/api/v1/accounts', fault: { status: 500 }, times: 1000 });
  });
  try {
    const r = await run(['accounts', 'export', '--output-file', file, '--page-size', '5', '--concurrency', '1', ...flags]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/5 rows kept in /);
  } finally {
    stop();
    s.sandbox.hooks.reset();
  }
}

describe('the command line a refused checkpoint names', () => {
  it.each([
    ['--search', ['--search', 'a'], ['--search', 'b']],
    ['--tz', ['--tz', 'UTC', '--filter', 'lastmodified >= 2020-01-01'], ['--tz', 'Europe/Berlin', '--filter', 'lastmodified >= 2020-01-01']],
    ['--delimiter', ['--format', 'csv', '--delimiter', ';'], ['--format', 'csv']],
    ['--no-header', ['--format', 'csv', '--no-header'], ['--format', 'csv']],
    ['--crlf', ['--format', 'csv', '--crlf'], ['--format', 'csv']],
  ])('exports that differ only by %s read differently', async (_flag, made, now) => {
    const file = join(tempDir(), 'x.csv');
    await failedAfterFirstPage(file, made);
    const r = await run(['accounts', 'export', '--output-file', file, '--resume', ...now]);
    expect(r.code).toBe(2);
    const m = /belongs to a different export \((.*)\), not this one \((.*)\); run that command with --resume/.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    const [, was, is] = m as unknown as [string, string, string];
    expect(was).not.toBe(is);
    // Pasted into a shell, the first is the command that made the checkpoint.
    expect(shellWords(was).slice(1)).toEqual(expect.arrayContaining([...made, '--output-file', file]));
  }, 30_000);

  it("a filter holding single quotes is shown as the shell reads it back", async () => {
    const file = join(tempDir(), "o'brien.csv");
    const filter = "lastname != 'Smith' and lastname != 'O\\'Brien'";
    await failedAfterFirstPage(file, ['--filter', filter]);
    const r = await run(['accounts', 'export', '--output-file', file, '--resume']);
    expect(r.code).toBe(2);
    const was = /belongs to a different export \((.*)\), not this one/.exec(r.stderr)?.[1] ?? '';
    expect(shellWords(was)).toEqual(['svc', 'accounts', 'export', '--format', 'csv', '--filter', filter, '--output-file', file]);
  }, 30_000);
});

describe("a sync copy's remembered filter, named in a refusal", () => {
  it('a filter holding single quotes, a --search and a --tz: shown as the shell reads them back', async () => {
    const target = join(tempDir(), 'q.sqlite');
    const filter = "lastname != 'O\\'Brien'";
    const made = await run(['accounts', 'sync', '--into', target, '--filter', filter, '--search', "it's", '--tz', 'UTC']);
    expect(made.code, made.stderr).toBe(0);
    const r = await run(['accounts', 'sync', '--into', target, '--filter', 'type = CUSTOMER']);
    expect(r.code).toBe(2);
    const was = /made with (.*), not --filter/.exec(r.stderr)?.[1] ?? '';
    expect(shellWords(was)).toEqual(['--filter', filter, '--search', "it's", '--tz', 'UTC']);
  }, 30_000);
});
