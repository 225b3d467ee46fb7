/**
 * `--jq EXPR` on the commands that print JSON, against a sandbox: what a user
 * sees on stdout and stderr, the exit codes, that a bad expression or format
 * sends nothing, hostile expressions that end, and the built svc (dist/svc.cjs,
 * which finds the engine in node_modules at run time) spawned as a user runs it.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../src/cli/context.js';
import { toGlobals } from '../../src/cli/globals.js';
import { writeJq } from '../../src/output/jq.js';
import { sandboxCli, tempConfigDir, testDeps } from '../helpers/cli.js';

const { sandbox, run } = sandboxCli({ seedAccounts: 0 });
const MARK = 'JqTest';
const COUNT = 23;
const ids: number[] = [];

beforeAll(async () => {
  for (let i = 0; i < COUNT; i++) {
    const r = await sandbox().call('PUT', 'api/v1/accounts', { json: { lastname: `${MARK} ${i}`, currency: 'EUR', description: i === 0 ? 'Line\nbreak "quoted"' : 'plain' } });
    ids.push(r.json<{ ID: number }>().ID);
  }
});

describe('--jq', () => {
  it('get -o json --jq .lastname prints the string raw', async () => {
    const r = await run(['accounts', 'get', String(ids[0]), '-o', 'json', '--jq', '.lastname']);
    expect(r).toEqual({ code: 0, stdout: `${MARK} 0\n`, stderr: '' });
    const text = await run(['accounts', 'get', String(ids[0]), '--jq', '.description']);
    expect(text.stdout).toBe('Line\nbreak "quoted"\n');
  });

  it('on a terminal, --jq alone means JSON (no -o needed), and objects come out as jq prints them', async () => {
    const r = await run(['accounts', 'get', String(ids[1]), '--jq', '{ID, lastname}'], { tty: true });
    expect(r).toEqual({ code: 0, stdout: `{\n  "ID": ${ids[1]},\n  "lastname": "${MARK} 1"\n}\n`, stderr: '' });
  });

  it('query --all --jq length sees every record of every page as one array', async () => {
    const r = await run(['accounts', 'query', '--all', '--page-size', '5', '--jq', 'length']);
    expect(r).toEqual({ code: 0, stdout: `${COUNT}\n`, stderr: '' });
    expect(sandbox().sandbox.hooks.requests).toHaveLength(5); // 5 + 5 + 5 + 5 + 3
    const names = await run(['accounts', 'query', '--all', '--page-size', '4', '--jq', '.[].lastname']);
    expect(names.stdout).toBe(ids.map((_, i) => `${MARK} ${i}\n`).join(''));
  });

  it('-o ndjson --jq .ID applies to each record, one output a line', async () => {
    const r = await run(['accounts', 'query', '--all', '--page-size', '6', '-o', 'ndjson', '--jq', '.ID']);
    expect(r).toEqual({ code: 0, stdout: ids.map((id) => `${id}\n`).join(''), stderr: '' });
    const objects = await run(['accounts', 'query', '--limit', '2', '-o', 'ndjson', '--jq', '{n: .lastname}']);
    expect(objects.stdout).toBe(`{"n":"${MARK} 0"}\n{"n":"${MARK} 1"}\n`);
  });

  it('works on any JSON a command prints: count, describe, --print-request', async () => {
    expect((await run(['accounts', 'count', '--jq', '.count'])).stdout).toBe(`${COUNT}\n`);
    expect((await run(['describe', 'accounts', '--jq', '.name'])).stdout).toBe('accounts\n');
    const printed = await run(['accounts', 'query', '--limit', '7', '--print-request', '--jq', '.limit']);
    expect(printed).toEqual({ code: 0, stdout: '7\n', stderr: '' });
  });

  it('refuses -o table, csv and tsv with a usage error naming -o json and -o ndjson, and sends nothing', async () => {
    for (const format of ['table', 'csv', 'tsv']) {
      const r = await run(['accounts', 'get', String(ids[0]), '-o', format, '--jq', '.']);
      expect(r).toEqual({ code: 2, stdout: '', stderr: `svc: --jq filters JSON output: use -o json or -o ndjson, not -o ${format}\n` });
    }
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });

  it('export refuses --jq (it writes its rows itself), in one line, exit 2', async () => {
    const r = await run(['accounts', 'export', '--jq', '.ID']);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: "svc: --jq filters what a command prints, and export writes its rows itself: use 'accounts query --all --jq …', or pipe 'export -o ndjson' to jq\n",
    });
  });

  it('a bad expression is exit 2 with jq’s message on one line, before anything is sent', async () => {
    const r = await run(['accounts', 'update', String(ids[2]), 'lastname=changed', '--jq', '.lastname |||']);
    expect(r).toEqual({ code: 2, stdout: '', stderr: "svc: invalid --jq expression: syntax error, unexpected '|' (Unix shell quoting issues?) at <top-level>, line 1\n" });
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
    const undefinedFn = await run(['accounts', 'query', '--jq', 'map(frob)']);
    expect(undefinedFn).toEqual({ code: 2, stdout: '', stderr: 'svc: invalid --jq expression: frob/0 is not defined at <top-level>, line 1\n' });
  });

  it('a runtime error is exit 1 with jq’s message, and nothing on stdout', async () => {
    const r = await run(['accounts', 'get', String(ids[0]), '--jq', '.lastname.first']);
    expect(r).toEqual({ code: 1, stdout: '', stderr: 'svc: --jq: Cannot index string with string "first"\n' });
  });

  it('`input` with nothing left to read says why, not jq’s bare "break"', async () => {
    const r = await run(['accounts', 'get', String(ids[0]), '--jq', 'input']);
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: 'svc: --jq: no more inputs: svc gives jq one input (the whole output, or each record alone with -o ndjson), so `input` finds nothing; use `.`, or `[inputs]` for none\n',
    });
  });

  it('debug output goes to stderr', async () => {
    const r = await run(['accounts', 'get', String(ids[0]), '--jq', '.ID | debug | tostring']);
    expect(r).toEqual({ code: 0, stdout: `${ids[0]}\n`, stderr: `["DEBUG:",${ids[0]}]\n` });
  });

  it('an invalid SVC_JQ_TIMEOUT is a usage error', async () => {
    const r = await run(['accounts', 'count', '--jq', '.'], { env: { SVC_JQ_TIMEOUT: 'soon' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("svc: invalid SVC_JQ_TIMEOUT 'soon'; use a number with ms, s, m, h, d or w, e.g. 30s, 1m30s or 30d\n");
  });
});

describe('a body a command writes itself (svc api): ctx.jq() and writeJq', () => {
  it('filters JSON text with the run’s expression and engine; undefined without --jq', async () => {
    const deps = testDeps({ env: { SVC_JQ_TIMEOUT: '5s' } });
    const ctx = createContext(deps, toGlobals({ jq: '.items[] | .name' }));
    try {
      const settings = await ctx.jq();
      expect(settings?.expr).toBe('.items[] | .name');
      await writeJq(deps.stdout, '{"items": [{"name": "a"}, {"name": "b\\nc"}]}', settings ?? { expr: '' });
      expect(deps.stdout.text).toBe('a\nb\nc\n');
    } finally {
      await ctx.close();
    }
    expect(await createContext(testDeps(), toGlobals({})).jq()).toBeUndefined();
    const bad = createContext(testDeps(), toGlobals({ jq: '.[' }));
    await expect(bad.jq()).rejects.toThrow(/^invalid --jq expression: syntax error/);
    await bad.close();
  });
});

describe('hostile expressions end, with an error', () => {
  const limit = { env: { SVC_JQ_TIMEOUT: '2s' } };

  it('def f: f; f (never ends) is stopped at SVC_JQ_TIMEOUT', async () => {
    const r = await run(['accounts', 'get', String(ids[0]), '--jq', 'def f: f; f'], limit);
    expect(r).toEqual({ code: 1, stdout: '', stderr: 'svc: --jq: jq did not finish within 2s and was stopped; set SVC_JQ_TIMEOUT for a longer limit\n' });
  });

  it('repeat(1) (endless output) is stopped, nothing half-written', async () => {
    const r = await run(['accounts', 'get', String(ids[0]), '--jq', 'repeat(1)'], limit);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^svc: --jq: (jq did not finish within 2s|jq's input and output outgrew)/);
  });

  it('a huge expression is a usage error naming the limit, and nothing is sent', async () => {
    const huge = await run(['accounts', 'count', '--jq', `.${' | .'.repeat(100_000)}`]);
    expect(huge).toEqual({ code: 2, stdout: '', stderr: 'svc: --jq expression is 400001 bytes long; the limit is 16384\n' });
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });

  it('deeply nested expressions work, fail to compile (exit 2) or run out of stack (exit 1): never a crash', async () => {
    const cases: [string, string][] = [
      ['['.repeat(8000) + ']'.repeat(8000) + ' | [paths] | length', '7999\n'],
      ['('.repeat(8000) + '.count' + ')'.repeat(8000), `${COUNT}\n`],
      ['{a:'.repeat(4000) + '1' + '}'.repeat(4000) + ' | [paths] | length', '4000\n'],
    ];
    for (const [expr, answer] of cases) {
      const deep = await run(['accounts', 'count', '--jq', expr]);
      // Which of the three depends on how far the engine's stack goes (its frames differ as V8 optimises it).
      if (deep.code === 0) expect(deep).toEqual({ code: 0, stdout: answer, stderr: '' });
      else {
        expect(deep.stdout).toBe('');
        expect(deep.stderr).toMatch(/^svc: (invalid --jq expression: [^\n]+|--jq: jq ran out of memory or stack)\n$/);
        expect(deep.code).toBe(deep.stderr.startsWith('svc: invalid') ? 2 : 1);
      }
    }
  });

  it('deep recursion runs out of jq’s memory and says so', async () => {
    const r = await run(['accounts', 'get', String(ids[0]), '--jq', 'def f: 1 + f; f'], { env: { SVC_JQ_TIMEOUT: '10s' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^svc: --jq: (cannot allocate memory|jq ran out of memory or stack|jq did not finish within 10s)/);
  });
});

describe('the built svc', () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const spawned = (args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const child = execFile(
        process.execPath,
        ['bin/svc.js', ...args],
        {
          cwd: root,
          encoding: 'utf8',
          timeout: 30_000,
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', SVC_CONFIG_DIR: tempConfigDir(), SVC_URL: sandbox().instanceUrl, SVC_TOKEN: sandbox().token(), NO_COLOR: '1', ...env },
        },
        (err, stdout, stderr) => resolve({ code: child.exitCode ?? (err ? -1 : 0), stdout, stderr }),
      );
      child.stdin?.end();
    });

  beforeAll(() => {
    // `npm test` builds first (pretest); running vitest alone needs `npm run build`.
    expect(existsSync(`${root}dist/svc.cjs`), 'dist/svc.cjs is missing: run `npm run build`').toBe(true);
  });

  it('finds the jq engine from dist/ and filters with it', async () => {
    const r = await spawned(['accounts', 'get', String(ids[3]), '--jq', '.lastname']);
    expect(r).toEqual({ code: 0, stdout: `${MARK} 3\n`, stderr: '' });
    const all = await spawned(['accounts', 'query', '--all', '--page-size', '10', '-o', 'ndjson', '--jq', 'select(.ID % 2 == 0) | .ID']);
    expect(all).toEqual({ code: 0, stdout: ids.filter((id) => id % 2 === 0).map((id) => `${id}\n`).join(''), stderr: '' });
  });

  it('exits 2 on a bad expression and 1 on a program it had to stop, and then ends', async () => {
    expect(await spawned(['accounts', 'count', '--jq', '.count |'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'svc: invalid --jq expression: syntax error, unexpected end of file (Unix shell quoting issues?) at <top-level>, line 1\n',
    });
    const stopped = await spawned(['accounts', 'count', '--jq', 'last(range(1e12))'], { SVC_JQ_TIMEOUT: '1s' });
    expect(stopped).toEqual({ code: 1, stdout: '', stderr: 'svc: --jq: jq did not finish within 1s and was stopped; set SVC_JQ_TIMEOUT for a longer limit\n' });
  });
});
