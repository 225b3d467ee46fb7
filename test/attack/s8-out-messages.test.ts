/**
 * s8-out: the error lines svc prints about what it was given. README, Exit
 * codes: "An error is one line on stderr naming the problem and the fix";
 * README, Output: control characters C0 and C1 and bidirectional overrides
 * "would act on the terminal instead of showing". Values typed by a person can
 * carry them, and so can values a script takes from records or files
 * (`svc accounts get "$id"` over IDs read from a CSV): svc's own rule
 * (src/util/shown.ts) is that such text is shown escaped. --tz, --delimiter
 * and `describe` do so (HELD below); the others echo the value raw.
 *
 * Tests named "HELD: …" are claims that held; the others fail today.
 */
import { describe, expect, it } from 'vitest';
import { svc } from '../helpers/cli.js';

/** A value with an escape sequence (clears the screen), a line break and a right-to-left override. */
const V = 'x\u001b[2J\ny\u202ez';
const env = { SVC_URL: 'http://127.0.0.1:9/demo', SVC_TOKEN: 'a'.repeat(40), NO_COLOR: '1' };
// eslint-disable-next-line no-control-regex
const ACTS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

async function refusal(argv: string[], extraEnv: Record<string, string> = {}): Promise<string> {
  const r = await svc(argv, { env: { ...env, ...extraEnv } });
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  return r.stderr;
}

function expectOneCleanLine(stderr: string): void {
  expect(stderr.endsWith('\n'), JSON.stringify(stderr)).toBe(true);
  expect(stderr.slice(0, -1).split('\n'), JSON.stringify(stderr)).toHaveLength(1);
  expect(stderr, JSON.stringify(stderr)).not.toMatch(ACTS);
}

describe('a value svc refuses is shown escaped, in one line', () => {
  for (const [name, argv, extraEnv] of [
    ['svc completion VALUE (unknown shell)', ['completion', V]],
    ['svc -o VALUE accounts count (unknown output format)', ['-o', V, 'accounts', 'count']],
    ['svc help VALUE (no such topic)', ['help', V]],
    ['svc VALUE (unknown command)', [V]],
    ['svc accounts query --fields VALUE (unknown field)', ['accounts', 'query', '--fields', V]],
    ['svc accounts query --fields ID,alias=VALUE (unknown field behind an alias)', ['accounts', 'query', '--fields', `ID,a=${V}`]],
    ['svc accounts query --sort VALUE (unknown field)', ['accounts', 'query', '--sort', V]],
    ['svc accounts get VALUE (not a record ID)', ['accounts', 'get', V]],
    ['svc --timeout VALUE accounts count (not a duration)', ['--timeout', V, 'accounts', 'count']],
    ['SVC_JQ_TIMEOUT=VALUE svc accounts count --jq . (not a duration)', ['accounts', 'count', '--jq', '.'], { SVC_JQ_TIMEOUT: V }],
  ] as const) {
    it(name, async () => {
      expectOneCleanLine(await refusal([...argv], extraEnv));
    });
  }
});

describe('HELD: where svc already shows the value escaped', () => {
  for (const [name, argv] of [
    ['--tz VALUE', ['accounts', 'count', '--tz', V]],
    ['--delimiter VALUE', ['--delimiter', V, 'accounts', 'query', '-o', 'csv']],
    ['svc describe VALUE', ['describe', V]],
    ['svc accounts describe VALUE', ['accounts', 'describe', V]],
    ['svc --profile VALUE accounts count', ['--profile', V, 'accounts', 'count']],
  ] as const) {
    it(name, async () => {
      const r = await svc([...argv], { env });
      expect(r.code, r.stderr).toBeGreaterThan(0);
      expectOneCleanLine(r.stderr);
    });
  }

  it('svc completion fsh: one line, exit 2, with the suggestion', async () => {
    expect(await refusal(['completion', 'fsh'])).toBe("svc: unknown shell 'fsh'; did you mean 'fish'? (choose bash, zsh, fish)\n");
  });
});
