/**
 * The JSON a user hands svc in --filter-json, --filter-file and --data-file,
 * refused before anything is sent when it cannot mean what the user wrote: a
 * key given twice in one object (JSON keeps the last in silence), nesting past
 * 500 levels (more than --filter's 200 levels compile to), bytes that are not
 * UTF-8 (never read as U+FFFD). A leading UTF-8 byte-order mark is dropped.
 * A FIFO is read without blocking svc: SIGINT and SIGTERM end the wait, and
 * stderr says svc waits for a writer (the spawned part runs dist/).
 */
import { closeSync, mkdtempSync, openSync, readdirSync, readlinkSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { useSpawnedSvc } from '../attack/s7-support.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-filter-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function file(content: string | Buffer): string {
  const path = join(dir, `f${n++}.json`);
  writeFileSync(path, content);
  return path;
}

const { sandbox, run } = sandboxCli();
const sent = () => sandbox().sandbox.hooks.requests;

/** The one line of stderr of a refused command line, having checked exit 2, no stdout and nothing sent. */
async function refusal(argv: string[], stdin?: string[]): Promise<string> {
  const r = await run(argv, stdin ? { stdin } : {});
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
  expect(sent()).toEqual([]);
  return r.stderr.trimEnd();
}

const deep = (levels: number): string => `${'["NOT",'.repeat(levels - 2)}{"ID": {">": 0}}${']'.repeat(levels - 2)}`;

describe('a key given twice in one JSON object', () => {
  it.each([
    ['{"ID": {">": 1}, "ID": {"<": 3}}', 'ID'],
    ['{"ID": {">": 1, ">": 3}}', '>'],
    ['["OR", {"type": 1}, {"lastname": "a", "lastname": "b"}]', 'lastname'],
    ['{"a\\u0062": 1, "ab": 2}', 'ab'],
  ])('%s is refused naming the key', async (json, key) => {
    expect(await refusal(['accounts', 'count', '--filter-json', json])).toContain(`--filter-json gives the key '${key}' twice in one object`);
  });

  it('the same key in two objects, and a key that is also a value, are fine', async () => {
    const r = await run(['accounts', 'count', '--filter-json', '["OR", {"ID": 1}, {"ID": 2, "lastname": "ID"}]']);
    expect(r.code, r.stderr).toBe(0);
  });

  it('in a --filter-file too', async () => {
    expect(await refusal(['accounts', 'count', '--filter-file', file('{"type": 1, "type": 2}')])).toMatch(/gives the key 'type' twice/);
  });
});

describe('nesting', () => {
  it('500 levels of JSON pass svc (the service judges them); 501 are refused in one line', async () => {
    const ok = await run(['accounts', 'count', '--filter-json', deep(500), '--explain']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(await refusal(['accounts', 'count', '--filter-json', deep(501)])).toBe(
      'svc: --filter-json nests deeper than 500 levels; flatten it (one ["AND", …] or ["OR", …] takes many conditions, IN a list of values)',
    );
  });

  it('100,000 levels from a file or stdin are refused the same way, never a stack overflow', async () => {
    expect(await refusal(['accounts', 'count', '--filter-file', file(deep(100_000))])).toMatch(/--filter-file .* nests deeper than 500 levels/);
    expect(await refusal(['accounts', 'count', '--filter-file', '-'], [deep(100_000)])).toMatch(/nests deeper than 500 levels/);
  });
});

describe('the bytes of --filter-file and --data-file', () => {
  it('a UTF-8 byte-order mark is dropped (a file, and stdin)', async () => {
    const r = await run(['accounts', 'count', '--filter-file', file('\ufeff{"ID": -1}')]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ count: 0 });
    const s = await run(['accounts', 'count', '--filter-file', '-', '--explain'], { stdin: ['\ufeff{"ID": -1}'] });
    expect(s.stdout).toBe('{\n  "ID": -1\n}\n');
  });

  it('a byte that is not UTF-8 is refused naming it and its offset; UTF-16 is named as such', async () => {
    const bad = file(Buffer.concat([Buffer.from('{"lastname": "a'), Buffer.from([0xff]), Buffer.from('b"}')]));
    expect(await refusal(['accounts', 'count', '--filter-file', bad])).toBe(
      `svc: --filter-file ${bad} is not valid JSON: it is not UTF-8 text (byte 0xff at offset 15); save it as UTF-8`,
    );
    const wide = file(Buffer.from('\ufeff{"ID": 1}', 'utf16le'));
    expect(await refusal(['accounts', 'count', '--filter-file', wide])).toMatch(/is not valid JSON: it is UTF-16 text/);
  });

  it('--data-file: a byte-order mark is dropped, a byte that is not UTF-8 refused', async () => {
    const r = await run(['accounts', 'create', '--data-file', file('\ufeff{"lastname": "BOM", "currency": "EUR"}'), '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ lastname: 'BOM' });
    const bad = file(Buffer.concat([Buffer.from('{"lastname": "'), Buffer.from([0xc3, 0x28]), Buffer.from('", "currency": "EUR"}')]));
    const before = sent().length;
    const refused = await run(['accounts', 'create', '--data-file', bad]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`svc: --data-file '${bad}' is not valid JSON: it is not UTF-8 text (byte 0xc3 at offset 14); save it as UTF-8\n`);
    expect(sent().length).toBe(before);
  });
});

describe('an empty --filter-file or --data-file', () => {
  it('is named as empty in one line (exit 2), not "not valid JSON: Unexpected end of JSON input"', async () => {
    const empty = file('');
    expect(await refusal(['accounts', 'count', '--filter-file', empty])).toBe(`svc: --filter-file ${empty} is empty; it must hold one JSON filter object such as '{"lastname": "Acme"}'`);
    expect(await refusal(['accounts', 'create', '--data-file', empty])).toBe(`svc: --data-file '${empty}' is empty; it must hold one JSON object of field values such as '{"lastname": "Acme"}'`);
    expect(await refusal(['accounts', 'count', '--filter-file', '-'], [])).toMatch(/^svc: standard input \(--filter-file -\) is empty;/);
  });
});

describe('a FIFO as --filter-file', () => {
  const fifo = (): string => {
    const path = join(dir, `fifo${n++}`);
    execFileSync('mkfifo', [path]);
    return path;
  };

  it('in-process: what a writer puts in is read whole', async () => {
    const path = fifo();
    const pending = run(['accounts', 'count', '--filter-file', path, '--explain']);
    const { open } = await import('node:fs/promises');
    const w = await open(path, 'w');
    await w.write('{"ID": ');
    await w.write('-1}');
    await w.close();
    const r = await pending;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('{\n  "ID": -1\n}\n');
  });

  const spawned = useSpawnedSvc({ url: () => sandbox().instanceUrl, token: () => sandbox().token(), configDir: mkdtempSync(join(dir, 'config-')) });

  /** Whether the process has `path` open. */
  const holds = (pid: number, path: string): boolean => {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`) === path;
        } catch {
          return false;
        }
      });
    } catch {
      return false;
    }
  };

  /** Resolves once the process holds `path` open (it waits for a writer in its event loop), or has ended. */
  const holding = (pid: number, path: string, ended: Promise<unknown>): Promise<void> =>
    new Promise((resolve) => {
      const t = setInterval(() => {
        if (holds(pid, path)) (clearInterval(t), resolve());
      }, 20);
      void ended.then(() => (clearInterval(t), resolve()));
    });

  it.skipIf(process.platform !== 'linux')('spawned: stderr says svc waits for a writer; SIGINT ends the wait at once', async () => {
    const path = fifo();
    const svc = spawned.start(['accounts', 'count', '--filter-file', path], { killMs: 5_000 });
    await holding(svc.child.pid ?? 0, path, svc.ended);
    svc.child.kill('SIGINT');
    const end = await svc.ended;
    expect(end.signal === 'SIGINT' || end.code === 130, `${end.signal} ${end.code}`).toBe(true);
    expect(end.stderr).toContain(`svc: waiting for a writer to --filter-file ${path} (a FIFO)`);
    expect(end.stdout).toBe('');
  });

  it.skipIf(process.platform !== 'linux')('spawned: a writer that comes later is read', async () => {
    const path = fifo();
    const svc = spawned.start(['accounts', 'count', '--filter-file', path]);
    await holding(svc.child.pid ?? 0, path, svc.ended);
    const fd = openSync(path, 'w');
    writeSync(fd, '{"ID": -1}');
    closeSync(fd);
    const end = await svc.ended;
    expect(end.code, end.stderr).toBe(0);
    expect(JSON.parse(end.stdout)).toEqual({ count: 0 });
  });
});
