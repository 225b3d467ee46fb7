/**
 * s8-r2-out: a second attack on `--jq` after 33ac6ef (jq-web's glue patched so
 * that output goes to chunked collectors) and on JSON written to a terminal
 * after 2577ac7 (C1, bidi and U+2028/9 as \uXXXX on a terminal).
 *
 * README ("Filtering JSON with --jq"): "It works as `jq -r` does"; "With
 * `-o ndjson` each record in turn"; "`halt_error(0)` ends with exit 0 and its
 * text on stderr, as in jq". README ("Output"): JSON and NDJSON "on a terminal
 * both write DEL, C1 controls, line separators and bidi controls as \uXXXX
 * escapes"; `--jq` "makes JSON the default, on a terminal too".
 *
 * Tests named "HELD: …" are claims that held; the others fail today.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createJqEngine } from '../../src/output/jq-engine.js';
import { prepareInsert } from '../../src/sandbox/data/store.js';
import { sandboxCli } from '../helpers/cli.js';

const { sandbox, run } = sandboxCli();
const MANY = 'S8R2 jq many';
let ids: number[] = [];
let bidi = 0;
// C1 CSI (0x9b starts an escape sequence on some terminals), a bidi override and its pop, a line separator.
const ACTS = /[\u009b\u202e\u202c\u2028]/;

beforeAll(async () => {
  const r = await sandbox().call('PUT', 'api/v1/accounts', { json: { lastname: 'S8R2 bidi', description: 'total \u202e0001 EUR\u202c \u009b2J x\u2028y', currency: 'EUR' } });
  expect(r.status, r.text).toBeLessThan(300);
  bidi = r.json<{ ID: number }>().ID;
  const insert = prepareInsert(sandbox().sandbox.db, 'demo', 'accounts', ['lastname', 'currency', 'description', 'creationdate', 'lastmodified']);
  sandbox().sandbox.db.transaction(() => {
    // Emoji and CJK in every record: multi-byte UTF-8 across jq's chunk boundaries.
    for (let i = 0; i < 3000; i++) ids.push(insert([`${MANY} ${i} 😀中文`, 'EUR', `d${'é'.repeat(i % 97)}🎉`, 0, 0]));
  })();
  ids = ids.sort((a, b) => a - b);
});

const manyFilter = `lastname ~~ "${MANY} %"`;

describe('jq -r writes what jq prints, NUL bytes included', () => {
  it('a string holding U+0000 comes out with its NUL byte, as `jq -r` writes it (svc drops it: "a\\u0000b" prints "ab")', async () => {
    // The natural way to feed xargs -0: join("\u0000"). Dropping the NUL silently glues the values together.
    const r = await run(['accounts', 'count', '--filter', `ID = ${bidi}`, '--jq', '"a\\u0000b", ([.count, 7] | map(tostring) | join("\\u0000"))']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.stringify(r.stdout)).toBe(JSON.stringify('a\u0000b\n1\u00007\n'));
  });
});

describe('-o ndjson: what jq makes of the records does not depend on how the pages fell', () => {
  // svc hands jq the records in batches (those at hand, at most 1000): `input`, `inputs` and `halt` see the batch,
  // so the answer changes with --page-size and with timing. README: "With -o ndjson each record in turn"; svc's own
  // message for `input` says "each record alone with -o ndjson".
  it('`[inputs] | length` gives the same lines whatever --page-size is (today 99s, 6s, 999s … by batch)', async () => {
    const out: string[] = [];
    for (const size of ['7', '100']) {
      const r = await run(['accounts', 'query', '--all', '--page-size', size, '--filter', manyFilter, '-o', 'ndjson', '--jq', '[inputs] | length']);
      expect({ code: r.code, stderr: r.stderr }, `--page-size ${size}`).toEqual({ code: 0, stderr: '' });
      out.push(r.stdout);
    }
    expect(new Set(out[0]?.split('\n')), 'page size 7').toEqual(new Set(out[1]?.split('\n')));
    expect(out[0]).toBe(out[1]);
  });

  it('`halt` ends the run, as in jq (`.ID, halt` prints the first ID only; today the first of every batch)', async () => {
    const r = await run(['accounts', 'query', '--all', '--page-size', '100', '--filter', manyFilter, '-o', 'ndjson', '--jq', '.ID, halt']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).toBe(`${ids[0]}\n`);
  });

  it('`halt_error(0)` ends the run with exit 0 (README: "ends with exit 0 and its text on stderr, as in jq"); later pages are not printed', async () => {
    const stop = ids[150];
    const r = await run(['accounts', 'query', '--all', '--page-size', '100', '--filter', manyFilter, '-o', 'ndjson', '--jq', `if .ID == ${stop} then "stop\\n" | halt_error(0) else .ID end`]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('stop\n');
    const lines = r.stdout.split('\n').filter(Boolean);
    // Never a record after the one that halted.
    expect(lines.filter((l) => Number(l) > (stop ?? 0))).toEqual([]);
  });
});

describe('--jq on a terminal escapes what would act on it, as -o json does there', () => {
  it('`get ID --jq .` on a terminal writes U+202E, C1 0x9b and U+2028 as \\uXXXX (today raw: the terminal reorders or runs them)', async () => {
    const plain = await run(['accounts', 'get', String(bidi), '-o', 'json'], { tty: true });
    expect(plain.stdout, 'HELD for -o json').not.toMatch(ACTS);
    const r = await run(['accounts', 'get', String(bidi), '--jq', '.'], { tty: true });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).not.toMatch(ACTS);
    expect(r.stdout).toContain('\\u202e');
  });

  it('`query -o ndjson --jq .` on a terminal, the same', async () => {
    const r = await run(['accounts', 'query', '--filter', `ID = ${bidi}`, '-o', 'ndjson', '--jq', '{d: .description}'], { tty: true });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).not.toMatch(ACTS);
  });

  it('`watch --once` (NDJSON) on a terminal, the same', async () => {
    const r = await run(['accounts', 'watch', '--filter', `ID = ${bidi}`, '--since', '100d', '--once'], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('"op":"upsert"');
    expect(r.stdout).not.toMatch(ACTS);
  });

  it('HELD: in a pipe, --jq . writes the bytes unchanged (same as -o json)', async () => {
    const a = await run(['accounts', 'get', String(bidi), '--jq', '.']);
    const b = await run(['accounts', 'get', String(bidi), '-o', 'json']);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout).toContain('\u202e');
  });
});

describe('HELD: the chunked collectors', () => {
  it('HELD: multi-byte UTF-8 split at the 16 KiB and 48 KiB chunk boundaries comes out byte for byte', async () => {
    for (const n of [16381, 16382, 16383, 16384, 49150, 49151]) {
      const r = await run(['accounts', 'count', '--filter', `ID = ${bidi}`, '--jq', `"x" * ${n} + "😀中" + "y" * 70000`]);
      expect(r.code).toBe(0);
      expect(r.stdout === `${'x'.repeat(n)}😀中${'y'.repeat(70000)}\n`, `n=${n}`).toBe(true);
    }
  });

  it('HELD: query --all --jq . equals -o json, and -o ndjson --jq . equals -o ndjson, byte for byte, over 3000 emoji/CJK records in 300 runs', async () => {
    const base = ['accounts', 'query', '--all', '--page-size', '10', '--filter', manyFilter];
    const [a, b, c, d] = await Promise.all([run([...base, '--jq', '.']), run([...base, '-o', 'json']), run([...base, '-o', 'ndjson', '--jq', '.']), run([...base, '-o', 'ndjson'])]);
    expect(a.stdout === b.stdout).toBe(true);
    expect(c.stdout === d.stdout).toBe(true);
    expect(c.stdout.split('\n').filter(Boolean)).toHaveLength(3000);
  });

  it('HELD: empty output, limit(0; …), halt and $__loc__ with -o json', async () => {
    for (const expr of ['empty', 'limit(0; .[])', 'halt']) {
      const r = await run(['accounts', 'count', '--jq', expr]);
      expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }, expr).toEqual({ code: 0, stdout: '', stderr: '' });
    }
    const loc = await run(['accounts', 'count', '-o', 'ndjson', '--jq', '$__loc__']);
    expect(loc.stdout).toBe('{"file":"<top-level>","line":1}\n');
  });

  it('HELD: output and stderr exactly at their limit pass, one byte more is stopped; 200 runs on one engine each start afresh (the engine with 1 MB limits)', async () => {
    const e = createJqEngine({ outputMb: 1, stderrMb: 1 });
    const opts = { compact: true, color: false };
    try {
      const n = 1 << 20;
      const at = await e.run('null', `"x" * ${n - 1}`, opts);
      expect(at.output.reduce((sum, c) => sum + c.length, 0)).toBe(n);
      await expect(e.run('null', `"x" * ${n}`, opts)).rejects.toThrow(/output passed 1 MB/);
      const err = await e.run('null', `"x" * ${n - 1} | stderr | empty`, opts);
      expect(err.stderr.length).toBe(n);
      await expect(e.run('null', `"x" * ${n + 1} | stderr | empty`, opts)).rejects.toThrow(/stderr wrote passed 1 MB/);
      const texts = new Set<string | undefined>();
      for (let i = 0; i < 200; i++) texts.add((await e.run('{"a":"😀"}', '.a, "中" * 3', opts)).text);
      expect([...texts]).toEqual(['😀\n中中中']);
    } finally {
      await e.close();
    }
  }, 30_000);
});
