/**
 * --jq's engine (jq-web: jq compiled to WebAssembly, in a worker thread) and
 * its writers, without a command: what reaches the output stream for each
 * kind of result, the errors and their exit codes, and hostile expressions
 * that must end with an error within their limits instead of hanging or
 * taking the machine's memory.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { SvcError, UsageError } from '../../src/errors.js';
import { createJqEngine, JQ_MAX_EXPRESSION_BYTES, writeJq, writeJqView, type JqEngine } from '../../src/output/jq.js';
import type { Row, View } from '../../src/output/view.js';
import { Capture } from '../helpers/cli.js';

const engines: JqEngine[] = [];
/** An engine closed after the file (each test that needs limits of its own makes one). */
function engine(limits: Parameters<typeof createJqEngine>[0] = {}): JqEngine {
  const e = createJqEngine(limits);
  engines.push(e);
  return e;
}
afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
});

const shared = engine();

async function jq(input: string | unknown, expr: string, opts: { compact?: boolean; engine?: JqEngine } = {}): Promise<{ stdout: string; stderr: string }> {
  const out = new Capture(false);
  const stderr = new Capture(false);
  await writeJq(out, input, { expr, engine: opts.engine ?? shared, stderr, compact: opts.compact ?? false });
  return { stdout: out.text, stderr: stderr.text };
}

/** The error a run ends with (fails the test when it succeeds). */
async function failure(run: Promise<unknown>): Promise<SvcError> {
  const err = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'the run should have failed').toBeInstanceOf(SvcError);
  return err as SvcError;
}

describe('the jq engine', () => {
  it('is real jq: paths, functions, reduce, string interpolation, big numbers kept as written', async () => {
    expect((await jq({ a: [1, 2, 3] }, '.a|length')).stdout).toBe('3\n');
    expect((await jq({ a: [3, 1, 2] }, '.a | sort | map(. * 10) | add')).stdout).toBe('60\n');
    expect((await jq([{ n: 'x', v: 1 }, { n: 'y', v: 2 }], 'reduce .[] as $r ({}; .[$r.n] = $r.v)', { compact: true })).stdout).toBe('{"x":1,"y":2}\n');
    expect((await jq({ n: 'Müller' }, '"name: \\(.n)"')).stdout).toBe('name: Müller\n');
    expect((await jq('{"id": 100000000000000000001}', '.id')).stdout).toBe('100000000000000000001\n');
    expect((await jq({ a: 1 }, '[paths] | length')).stdout).toBe('1\n');
  });

  it('prints strings raw, one output a line, as jq -r does; other values as JSON', async () => {
    expect((await jq(['a', 'b\nc', 'é 東京'], '.[]')).stdout).toBe('a\nb\nc\né 東京\n');
    expect((await jq({ a: 'x', b: null, c: [1] }, '.a, .b, .c, .d')).stdout).toBe('x\nnull\n[\n  1\n]\nnull\n');
    expect((await jq({ a: { b: [1, 2] } }, '.')).stdout).toBe('{\n  "a": {\n    "b": [\n      1,\n      2\n    ]\n  }\n}\n');
    expect((await jq({ a: { b: [1, 2] } }, '.', { compact: true })).stdout).toBe('{"a":{"b":[1,2]}}\n');
    expect((await jq({}, '""')).stdout).toBe('\n');
  });

  it('writes nothing for no output', async () => {
    expect(await jq([1, 2], '.[] | select(. > 5)')).toEqual({ stdout: '', stderr: '' });
    expect(await jq({}, 'empty')).toEqual({ stdout: '', stderr: '' });
  });

  it('takes JSON text with several values as several inputs', async () => {
    expect((await jq('{"a":1}\n{"a":"x"}\n{"a":[2]}', '.a', { compact: true })).stdout).toBe('1\nx\n[2]\n');
  });

  it('sends what debug and stderr write to the error stream, not the output', async () => {
    const r = await jq({ a: 1 }, '.a | debug | . + 1');
    expect(r.stdout).toBe('2\n');
    expect(r.stderr).toBe('["DEBUG:",1]\n');
  });

  it("does not show the process's environment to $ENV or env", async () => {
    const r = await jq({}, '[$ENV, env] | map(keys) | add | unique | map(select(test("SVC|PATH|HOME"))) | length');
    const env = await jq({}, '$ENV.HOME // "none"');
    expect(r.stdout).toBe('2\n'); // the engine's own PATH and HOME (/home/web_user), nothing else
    expect(env.stdout).toBe('/home/web_user\n');
  });
});

describe('errors', () => {
  it('a compile error is a usage error (exit 2) with jq’s message on one line', async () => {
    const err = await failure(jq({}, '.a |||'));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe("invalid --jq expression: syntax error, unexpected '|' (Unix shell quoting issues?) at <top-level>, line 1");
    const undef = await failure(jq({}, 'frobnicate(1)'));
    expect(undef.message).toBe('invalid --jq expression: frobnicate/1 is not defined at <top-level>, line 1');
    const two = await failure(jq({}, '$a + $b'));
    expect(two.message).toBe('invalid --jq expression: $a is not defined at <top-level>, line 1; $b is not defined at <top-level>, line 1');
  });

  it('check() finds compile errors without running the expression on anything', async () => {
    const e = engine();
    await e.check('def f: f; f'); // would never end if it ran
    await e.check('repeat(1)');
    const err = await failure(e.check('.[] |'));
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(/^invalid --jq expression: syntax error, unexpected end of file/);
    // The engine that failed a check is replaced: the next run works.
    expect((await jq({ a: 1 }, '.a', { engine: e })).stdout).toBe('1\n');
  });

  it('a runtime error is a failure (exit 1) with jq’s message, and nothing is written', async () => {
    const out = new Capture(false);
    const err = await failure(writeJq(out, { a: 1 }, { expr: '.a, .a.b', engine: shared }));
    expect(err).not.toBeInstanceOf(UsageError);
    expect(err.exitCode).toBe(1);
    expect(err.message).toBe('--jq: Cannot index number with string "b"');
    expect(out.text).toBe('');
    expect((await failure(jq({}, 'error("boom")'))).message).toBe('--jq: boom');
    expect((await failure(jq([1], '.[] | ltrimstr(1) | .[0]'))).message).toBe('--jq: Cannot index number with number');
    expect((await failure(jq({}, '"stop" | halt_error(1)'))).message).toBe('--jq: stop');
  });

  it('an error on any input fails the run, not only on the last (jq’s own exit status tells the last only)', async () => {
    const err = await failure(jq('{"a":1}\n{"a":{"b":2}}', '.a.b', { compact: true }));
    expect(err.message).toBe('--jq: Cannot index number with string "b"');
  });

  it('input that is not JSON is named as such', async () => {
    expect((await failure(jq('{"a":', '.'))).message).toMatch(/^--jq: the input is not JSON jq can read: Unfinished JSON term/);
  });

  it('a message from jq is one line, without control characters, and not endless', async () => {
    const err = await failure(jq({}, `error("a\\nb\\u001b[31m" + ("x" * 10000))`));
    expect(err.message).not.toMatch(/[\n\r\u001b]/);
    expect(err.message.length).toBeLessThan(500);
    expect(err.message).toMatch(/^--jq: a b \[31mxxx/);
  });
});

describe('hostile expressions end with an error within their limits', () => {
  it(`refuses an expression longer than ${JQ_MAX_EXPRESSION_BYTES} bytes, or one with a NUL, before jq sees it`, async () => {
    const huge = await failure(jq({}, `.${' | .'.repeat(300_000)}`));
    expect(huge).toBeInstanceOf(UsageError);
    expect(huge.message).toBe(`--jq expression is 1200001 bytes long; the limit is ${JQ_MAX_EXPRESSION_BYTES}`);
    expect((await failure(jq({}, '.a\0.b'))).message).toBe('--jq expression holds a NUL character');
  });

  it('deeply nested expressions up to the limit give the right answer or a clean error, never a wrong one', async () => {
    const depth = (JQ_MAX_EXPRESSION_BYTES - 40) / 2;
    const cases: [string, string][] = [
      ['['.repeat(depth) + '1' + ']'.repeat(depth) + ' | [paths] | length', String(depth)],
      ['('.repeat(depth) + '1' + ')'.repeat(depth) + ' + 1', '2'],
      ['{a:'.repeat(depth / 2) + '1' + '}'.repeat(depth / 2) + ' | [paths] | length', String(depth / 2)],
      [`1${' | .'.repeat(JQ_MAX_EXPRESSION_BYTES / 4 - 1)}`, '1'],
      [`1${' + 1'.repeat(JQ_MAX_EXPRESSION_BYTES / 4 - 1)}`, String(JQ_MAX_EXPRESSION_BYTES / 4)],
    ];
    for (const [expr, answer] of cases) {
      const e = engine({ timeoutMs: 10_000 });
      const result = await e.check(expr).then(
        () => e.run('null', expr, { compact: true, color: false }).then((r) => r.text, (err: SvcError) => err),
        (err: SvcError) => err,
      );
      // Which depends on how far the engine's stack goes (its frames differ as V8 optimises it).
      if (typeof result === 'string') expect(result, expr.slice(0, 20)).toBe(answer);
      else {
        expect(result, expr.slice(0, 20)).toBeInstanceOf(SvcError);
        expect(result?.message).toMatch(/^(invalid --jq expression: |--jq: jq ran out of memory or stack$)/);
      }
      await e.close();
    }
  }, 60_000);

  it('a program that never ends is stopped at the time limit', async () => {
    const e = engine({ timeoutMs: 1000 });
    const started = Date.now();
    const err = await failure(e.run('null', 'def f: f; f', { compact: false, color: false }));
    expect(err.exitCode).toBe(1);
    expect(err.message).toBe('--jq: jq did not finish within 1s and was stopped; set SVC_JQ_TIMEOUT for a longer limit');
    expect(Date.now() - started).toBeLessThan(5000);
    // The engine starts a new worker for the next run.
    expect((await e.run('{"a":2}', '.a', { compact: false, color: false })).text).toBe('2');
  });

  it('endless output (repeat) is stopped by the memory limit or the time limit, whichever comes first', async () => {
    const e = engine({ timeoutMs: 8000, heapMb: 64 });
    const err = await failure(e.run('null', 'repeat(1)', { compact: true, color: false }));
    expect(err.exitCode).toBe(1);
    expect(err.message).toMatch(/^--jq: (jq's input and output outgrew the 64 MB it may use|jq did not finish within 8s)/);
  });

  it('endless recursion and huge values run out of jq’s own memory or time, and say so', async () => {
    const e = engine({ timeoutMs: 3000 });
    for (const expr of ['def f: 1 + f; f', 'reduce range(40) as $i ("x"; . + .) | length', '[range(1e9)] | length']) {
      const err = await failure(e.run('null', expr, { compact: true, color: false }));
      expect(err.exitCode, expr).toBe(1);
      expect(err.message, expr).toMatch(/^--jq: (cannot allocate memory|jq ran out of memory or stack|jq did not finish within 3s)/);
    }
  }, 40_000);

  it('input nested deeper than jq reads is an error, not a crash', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect((await failure(jq(deep, 'length'))).message).toMatch(/^--jq: the input is not JSON jq can read: Exceeds depth limit for parsing/);
  });

  it('prototype keys are plain keys', async () => {
    const input = '{"__proto__":{"polluted":1},"constructor":{"prototype":2}}';
    expect((await jq(input, '[keys[], .__proto__.polluted, .constructor.prototype]', { compact: true })).stdout).toBe('["__proto__","constructor",1,2]\n');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('views through --jq', () => {
  async function* pages(rows: Row[], size: number): AsyncGenerator<Row> {
    for (let i = 0; i < rows.length; i += size) {
      await new Promise((r) => setImmediate(r)); // a page on its way
      yield* rows.slice(i, i + size);
    }
  }
  const rows: Row[] = Array.from({ length: 25 }, (_, i) => ({ ID: i + 1, lastname: `N${i + 1}` }));
  const records = (): View => ({ kind: 'records', columns: [{ key: 'ID' }], rows: pages(rows, 7) });

  it('json: the expression gets every record as one array', async () => {
    const out = new Capture(false);
    await writeJqView(out, records(), 'json', { expr: 'length', engine: shared });
    expect(out.text).toBe('25\n');
  });

  it('ndjson: the expression gets each record, and what it prints is one line a value', async () => {
    const out = new Capture(false);
    await writeJqView(out, records(), 'ndjson', { expr: '.ID', engine: shared });
    expect(out.text).toBe(rows.map((r) => `${r.ID as number}\n`).join(''));
    const objects = new Capture(false);
    await writeJqView(objects, records(), 'ndjson', { expr: 'select(.ID % 10 == 0) | {n: .lastname}', engine: shared });
    expect(objects.text).toBe('{"n":"N10"}\n{"n":"N20"}\n');
  });

  it('ndjson over more records than one batch keeps them all, in order', async () => {
    const many: Row[] = Array.from({ length: 2500 }, (_, i) => ({ ID: i }));
    const out = new Capture(false);
    await writeJqView(out, { kind: 'records', columns: [], rows: many }, 'ndjson', { expr: '.ID', engine: shared });
    expect(out.text).toBe(many.map((r) => `${r.ID as number}\n`).join(''));
  });

  it('an object view is its value; a text view of JSON (--print-request) is that JSON; prose is refused', async () => {
    const out = new Capture(false);
    await writeJqView(out, { kind: 'object', value: { count: 3 }, details: [] }, 'json', { expr: '.count', engine: shared });
    await writeJqView(out, { kind: 'text', text: '{"limit": 5}\n' }, 'json', { expr: '.limit', engine: shared });
    expect(out.text).toBe('3\n5\n');
    const err = await failure(writeJqView(out, { kind: 'text', text: 'Some help text\n' }, 'json', { expr: '.', engine: shared }));
    expect(err.message).toBe('--jq filters JSON output, and this command prints text; leave out --jq');
  });

  it('refuses table, csv and tsv with a usage error naming -o json and -o ndjson', async () => {
    for (const format of ['table', 'csv', 'tsv'] as const) {
      const err = await failure(writeJqView(new Capture(false), records(), format, { expr: '.', engine: shared }));
      expect(err.exitCode).toBe(2);
      expect(err.message).toBe(`--jq filters JSON output: use -o json or -o ndjson, not -o ${format}`);
    }
  });

  it('without an engine of the caller’s, makes one for the call and closes it', async () => {
    const out = new Capture(false);
    await writeJq(out, '[1,2,3]', { expr: 'add' });
    expect(out.text).toBe('6\n');
  });
});
