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

  it("an expression that starts with '-' is a program, never one of jq's own options (--help, -n, --arg …)", async () => {
    const e = engine();
    for (const expr of ['--help', '-h', '--version', '-n', '-s', '--tab', '--arg', '--rawfile', '--argjson', '-L/etc', '--', '-']) {
      const err = await failure(e.check(expr));
      expect(err, expr).toBeInstanceOf(UsageError);
      expect(err.message, expr).toMatch(/^invalid --jq expression: /);
      expect(err.message, expr).not.toMatch(/inputString|worker eval|Usage/);
      expect((await failure(jq({ count: 3 }, expr, { engine: e }))).exitCode, expr).toBe(2);
    }
    expect((await jq({ count: 3 }, '-.count')).stdout).toBe('-3\n');
    expect((await jq({ count: 3 }, '-1')).stdout).toBe('-1\n');
    expect((await jq({ count: 3 }, '-.count', { compact: true })).stdout).toBe('-3\n');
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

describe('output past what one array or string holds, and the output limits', () => {
  /** A stream that counts what reaches it and keeps its start and end. */
  class Counter extends Capture {
    bytes = 0;
    head = '';
    tail = '';
    override write(chunk: string | Uint8Array): boolean {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
      this.bytes += text.length;
      if (this.head.length < 10) this.head += text.slice(0, 10);
      this.tail = (this.tail + text).slice(-10);
      return true;
    }
  }

  it('prints output past the ~113 MB an array of bytes could hold (jq-web collected it so, and V8 aborted svc)', async () => {
    const out = new Counter(false);
    await writeJq(out, null, { expr: '"x" * 120000000', engine: engine({ timeoutMs: 120_000 }) });
    expect(out.bytes).toBe(120_000_001);
    expect(out.head).toBe('xxxxxxxxxx');
    expect(out.tail).toBe('xxxxxxxxx\n');
  }, 180_000);

  it('stops jq past the output limit: exit 1, one line naming the limit and the fix, nothing written', async () => {
    const e = engine({ outputMb: 1 });
    for (const expr of ['"x" * 2000000', 'repeat(1)', 'range(1e7)']) {
      const out = new Capture(false);
      const started = Date.now();
      const err = await failure(writeJq(out, null, { expr, engine: e }));
      expect(err.exitCode, expr).toBe(1);
      expect(err.message, expr).toBe(
        "--jq: jq's output passed 1 MB, the most svc holds for one run, and jq was stopped; print less (select in the expression, or --filter, --fields), or use -o ndjson",
      );
      expect(out.text, expr).toBe('');
      expect(Date.now() - started, expr).toBeLessThan(10_000);
    }
    // Output up to the limit is whole, and the engine works after a stopped run.
    const out = new Capture(false);
    await writeJq(out, null, { expr: '"x" * 1048575', engine: e });
    expect(out.text).toBe(`${'x'.repeat(1_048_575)}\n`);
  }, 60_000);

  it('-o json: records past the longest string V8 holds (512 MB of JSON) are exit 1 naming the limit and -o ndjson', async () => {
    const big = 'x'.repeat(1_000_000);
    const rows: Row[] = Array.from({ length: 600 }, (_, i) => ({ ID: i, d: big }));
    const err = await failure(writeJqView(new Capture(false), { kind: 'records', columns: [], rows }, 'json', { expr: 'length', engine: shared }));
    expect(err.exitCode).toBe(1);
    expect(err.message).toBe(
      '--jq: the records come to more than 512 MB of JSON, the most svc hands jq at once; use -o ndjson (jq gets each record alone), or fewer records or fields (--filter, --fields)',
    );
  });

  it('stops jq past the limit on what debug and stderr write', async () => {
    const err = await failure(writeJq(new Capture(false), null, { expr: 'range(1e7) | debug | empty', engine: engine({ stderrMb: 1 }) }));
    expect(err.exitCode).toBe(1);
    expect(err.message).toBe('--jq: what debug and stderr wrote passed 1 MB, the most svc reads, and jq was stopped; debug less');
  }, 60_000);
});

describe('debug and stderr when the run fails', () => {
  it('what debug wrote before a runtime error reaches stderr, before the error', async () => {
    const stderr = new Capture(false);
    const out = new Capture(false);
    const err = await failure(writeJq(out, { count: 1 }, { expr: '.count | debug | error("boom")', engine: shared, stderr }));
    expect(err.message).toBe('--jq: boom');
    expect(stderr.text).toBe('["DEBUG:",1]\n');
    expect(out.text).toBe('');
  });

  it('several inputs: debug lines of the inputs after a failing one stay debug lines, not part of the message', async () => {
    const stderr = new Capture(false);
    const err = await failure(writeJq(new Capture(false), '{"ID":1}\n{"ID":2}\n{"ID":3}', { expr: '.ID | debug | if . == 2 then error("a\\nb") else . end', engine: shared, stderr }));
    expect(err.message).toBe('--jq: a b');
    expect(stderr.text).toBe('["DEBUG:",1]\n["DEBUG:",2]\n["DEBUG:",3]\n');
  });

  it('-o ndjson: the run stops at the failing record, what jq printed for those before it is written, whatever the batch', async () => {
    const rows: Row[] = [{ ID: 1 }, { ID: 2 }, { ID: 3 }];
    for (const view of [
      { kind: 'records', columns: [], rows } as const,
      { kind: 'records', columns: [], rows: pagesOf(rows, 1) } as const,
    ]) {
      const stderr = new Capture(false);
      const out = new Capture(false);
      const err = await failure(writeJqView(out, view, 'ndjson', { expr: '.ID | debug | if . == 2 then error("a\\nb") else . end', engine: shared, stderr }));
      expect(err.message).toBe('--jq: a b');
      expect(stderr.text).toBe('["DEBUG:",1]\n["DEBUG:",2]\n');
      expect(out.text).toBe('1\n');
    }
  });

  it('halt_error: its text is the message, debug lines are written before it', async () => {
    const stderr = new Capture(false);
    const err = await failure(writeJq(new Capture(false), 5, { expr: 'debug | "stop" | halt_error(1)', engine: shared, stderr }));
    expect(err.message).toBe('--jq: stop');
    expect(stderr.text).toBe('["DEBUG:",5]\n');
  });

  it('what stderr wrote without a newline stays apart from the error after it', async () => {
    const stderr = new Capture(false);
    const err = await failure(writeJq(new Capture(false), null, { expr: '"x" | stderr | error("boom")', engine: shared, stderr }));
    expect(err.message).toBe('--jq: boom');
    expect(stderr.text).toBe('x\n');
  });

  it('halt_error(3) is a runtime error with its message, not taken for a compile error (also exit status 3)', async () => {
    const err = await failure(jq({}, '{a: 1} | halt_error(3)'));
    expect(err).not.toBeInstanceOf(UsageError);
    expect(err.message).toBe('--jq: {"a":1}');
  });

  it('a message quoting record data drops bidi embeddings, overrides and isolates as well as control characters', async () => {
    const err = await failure(jq({ d: 'total \u202e0001 EUR\u202c due \u2066x\u2069 \u009b2J' }, '.d | tonumber'));
    expect(err.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    expect(err.message).toMatch(/^--jq: .*total +0001 EUR +due +x +2J/);
  });
});

/** Rows in pages of `size`, each page on its way a moment; counts the pages asked for. */
function pagesOf(rows: readonly Row[], size: number, asked = { pages: 0 }): AsyncGenerator<Row> {
  return (async function* () {
    for (let i = 0; i < rows.length; i += size) {
      asked.pages++;
      await new Promise((r) => setImmediate(r));
      yield* rows.slice(i, i + size);
    }
  })();
}

describe('jq -r writes NUL bytes as jq does', () => {
  it('a string holding U+0000 comes out with its NUL byte, in output and in what stderr writes', async () => {
    const r = await jq({ n: [1, 7] }, '"a\\u0000b", (.n | map(tostring) | join("\\u0000")), ("x\\u0000y" | stderr | empty)');
    expect(JSON.stringify(r.stdout)).toBe(JSON.stringify('a\u0000b\n1\u00007\n'));
    expect(JSON.stringify(r.stderr)).toBe(JSON.stringify('x\u0000y\n'));
  });
});

describe('-o ndjson: each record alone, whatever batch it came in', () => {
  const rows: Row[] = Array.from({ length: 40 }, (_, i) => ({ ID: i + 1 }));
  const ndjson = async (expr: string, view: View, stderr = new Capture(false)): Promise<string> => {
    const out = new Capture(false);
    await writeJqView(out, view, 'ndjson', { expr, engine: shared, stderr });
    return out.text;
  };

  it('`input` finds nothing and `inputs` nothing, at any page size and for rows at hand', async () => {
    const want = rows.map(() => '0\n').join('');
    for (const size of [1, 7, 40]) expect(await ndjson('[inputs] | length', { kind: 'records', columns: [], rows: pagesOf(rows, size) }), `pages of ${size}`).toBe(want);
    expect(await ndjson('[inputs] | length', { kind: 'records', columns: [], rows })).toBe(want);
    const err = await failure(writeJqView(new Capture(false), { kind: 'records', columns: [], rows: pagesOf(rows, 7) }, 'ndjson', { expr: '[., input]', engine: shared }));
    expect(err.message).toMatch(/^--jq: no more inputs: svc gives jq one input/);
  });

  it('leading defs, a comment at the end and $__loc__ work as on their own', async () => {
    const view = (): View => ({ kind: 'records', columns: [], rows: pagesOf(rows.slice(0, 3), 2) });
    expect(await ndjson('def twice: . * 2; def f($x): $x + 1; .ID | twice | f(.)', view())).toBe('3\n5\n7\n');
    expect(await ndjson('.ID # the ID\\', view())).toBe('1\n2\n3\n');
    expect(await ndjson('$__loc__.line', view())).toBe('1\n1\n1\n');
  });

  it('`halt` ends the run: no record after it is printed, and no page after it is asked for', async () => {
    for (const size of [1, 7, 40]) {
      const asked = { pages: 0 };
      const text = await ndjson('.ID, (select(.ID == 9) | halt)', { kind: 'records', columns: [], rows: pagesOf(rows, size, asked) });
      expect(text, `pages of ${size}`).toBe(rows.slice(0, 9).map((r) => `${r.ID as number}\n`).join(''));
      expect(asked.pages, `pages of ${size}`).toBe(Math.ceil(9 / size));
    }
    expect(await ndjson('.ID, halt', { kind: 'records', columns: [], rows })).toBe('1\n');
  });

  it('`halt_error(0)` ends the run with its text on stderr, no error; `halt_error(1)` is an error', async () => {
    const stderr = new Capture(false);
    const asked = { pages: 0 };
    const text = await ndjson('if .ID == 12 then "stop\\n" | halt_error(0) else .ID end', { kind: 'records', columns: [], rows: pagesOf(rows, 5, asked) }, stderr);
    expect(text).toBe(rows.slice(0, 11).map((r) => `${r.ID as number}\n`).join(''));
    expect(stderr.text).toBe('stop\n');
    expect(asked.pages).toBe(3);
    const out = new Capture(false);
    const err = await failure(writeJqView(out, { kind: 'records', columns: [], rows: pagesOf(rows, 5) }, 'ndjson', { expr: 'if .ID == 3 then "bad" | halt_error(1) else .ID end', engine: shared }));
    expect(err.message).toBe('--jq: bad');
    expect(out.text).toBe('1\n2\n');
  });

  it('-o ndjson --jq . writes each record as -o ndjson does, byte for byte', async () => {
    const odd: Row[] = [{ ID: 1, d: 'é 😀 \u202e \u2028 "q" \\' }, { ID: 2, n: 1.5, z: null, a: [1, { b: 'x' }] }];
    expect(await ndjson('.', { kind: 'records', columns: [], rows: pagesOf(odd, 1) })).toBe(odd.map((r) => `${JSON.stringify(r)}\n`).join(''));
  });

  it('a `module` directive is refused when the expression is checked (exit 2)', async () => {
    const err = await failure(shared.check('# meta\nmodule {a: 1}; .'));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe('invalid --jq expression: svc runs no jq modules, so it takes no `module` directive; leave it out');
    await shared.check('modulemeta? // .'); // a builtin, not the directive
  });
});

describe('--jq on a terminal', () => {
  const record = { ID: 1, d: 'total \u202e0001\u202c \u009b2J x\u2028y\u007f \u001b[31mred' };
  const ACTS = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
  const tty = async (input: unknown, expr: string, opts: { compact?: boolean; color?: boolean } = {}): Promise<string> => {
    const out = new Capture(true);
    await writeJq(out, input, { expr, engine: shared, compact: opts.compact ?? false, color: opts.color ?? false });
    return out.text;
  };

  it('JSON jq prints has what would act on the terminal as \\uXXXX, the same JSON (as -o json there)', async () => {
    const pretty = await tty(record, '.');
    expect(pretty).not.toMatch(ACTS);
    expect(pretty).toContain('\\u202e');
    expect(JSON.parse(pretty)).toEqual(record);
    const compact = await tty(record, '{d}, [.d]', { compact: true });
    expect(compact.split('\n').map((l) => (l ? JSON.parse(l) : l))).toEqual([{ d: record.d }, [record.d], '']);
    expect(compact).not.toMatch(ACTS);
  });

  it('with colours, the same: the colours stay, nothing else acts', async () => {
    const text = await tty(record, '., .d, [.d]', { color: true });
    expect(text).toContain('\u001b[');
    expect(text).not.toMatch(ACTS);
    // eslint-disable-next-line no-control-regex
    expect(JSON.parse(text.replace(/\u001b\[[0-9;]*m/g, '').split('\n').slice(0, 4).join('\n'))).toEqual(record);
  });

  it('a string jq prints raw keeps its line feeds and tabs; other line breaks become line feeds, the other acting characters are dropped', async () => {
    expect(await tty(record, '.d')).toBe('total 0001 2J x\ny [31mred\n');
    expect(await tty({ a: 'x\ty\r\nz\rw', b: '"quoted" \\ 😀' }, '.a, .b, "\\(.a)|\\(.b)"', { color: true })).toBe('x\ty\nz\nw\n"quoted" \\ 😀\nx\ty\nz\nw|"quoted" \\ 😀\n');
    // A string inside an indented value is JSON, not raw.
    expect(await tty(['"a"', 'b'], '.')).toBe('[\n  "\\"a\\"",\n  "b"\n]\n');
  });

  it('-o ndjson on a terminal, the same', async () => {
    const out = new Capture(true);
    await writeJqView(out, { kind: 'records', columns: [], rows: pagesOf([record, record], 1) }, 'ndjson', { expr: '{d: .d}, .d', engine: shared });
    expect(out.text).not.toMatch(ACTS);
    expect(out.text.split('\n')[0]).toBe(JSON.stringify({ d: record.d }).replace(ACTS_G, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  });

  it('in a pipe, the bytes jq prints, unchanged', async () => {
    const out = new Capture(false);
    await writeJq(out, record, { expr: '., .d', engine: shared, compact: true });
    expect(out.text).toBe(`${JSON.stringify(record).replace(/\u007f/g, '\\u007f').replace(/\u001b/g, '\\u001b')}\n${record.d}\n`);
  });
});

const ACTS_G = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
