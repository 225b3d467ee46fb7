/**
 * s9-filter: pathological filters and the --filter-file that carries them.
 *
 * README, Exit codes: "2 usage: bad input: … an invalid value; nothing was
 * sent"; "130 interrupted: stopped by Ctrl-C (SIGINT) or SIGTERM"; "An error is
 * one line on stderr naming the problem and the fix". Query options:
 * "`--filter-json JSON` and `--filter-file FILE` (the service's own filter
 * object …)"; `svc <family> count --help`: "--filter-file <file>  a JSON filter
 * from a file (- for stdin)". Import, for comparison: "a line that is not valid
 * UTF-8 makes its row invalid", "A UTF-8 byte-order mark is dropped", and its
 * tests take "100,000 levels of nesting".
 *
 * Earlier rounds (s7-reads-filter-input) covered 10,000 and 100,000 levels of
 * parentheses in --filter, a 1 MB --filter, NUL and lone surrogates; this file
 * goes to the JSON forms, the file itself, and the sizes between.
 *
 * Tests named "HELD: …" are claims that held; the others fail today.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { useSpawnedSvc } from './s7-support.js';

/** Every file this test writes, and the spawned svc's config, removed after the last test. */
const dir = mkdtempSync(join(tmpdir(), 's9-filter-input-'));
mkdirSync(join(dir, 'config'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const { sandbox, run } = sandboxCli();
const sent = () => sandbox().sandbox.hooks.requests;
const spawned = useSpawnedSvc({ url: () => sandbox().instanceUrl, token: () => sandbox().token(), configDir: join(dir, 'config') });
let n = 0;
function file(content: string | Buffer): string {
  const path = join(dir, `f${n++}.json`);
  writeFileSync(path, content);
  return path;
}

const lines = (s: string): string[] => s.replace(/\n$/, '').split('\n');

async function count(args: string[]): Promise<number> {
  const r = await run(['opportunities', 'count', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { count: number }).count;
}

let longA = 0;
let quoted = 0;
let backslash = 0;

beforeAll(async () => {
  const put = async (body: Record<string, unknown>): Promise<number> => {
    const r = await sandbox().call('PUT', 'api/v1/opportunities', { json: body });
    if (r.status !== 201) throw new Error(r.text);
    return r.json<{ ID: number }>().ID;
  };
  // A long run of a's: what a backtracking engine chokes on with (a+)+$ or %a%a%a…%b.
  longA = await put({ name: 'S9I long', description: `${'a'.repeat(200_000)}!` });
  quoted = await put({ name: '"quoted"', description: "it's" });
  backslash = await put({ name: 'ends\\', description: '\\starts' });
});

describe('--filter-file: what the file is', () => {
  it('HELD: a file of JSON, and - for standard input, give the same count as --filter-json', async () => {
    const json = '{"name": {"~~": "S9I%"}}';
    const direct = await count(['--filter-json', json]);
    expect(direct).toBe(1);
    expect(await count(['--filter-file', file(json)])).toBe(direct);
    const r = await run(['opportunities', 'count', '--filter-file', '-'], { stdin: [json] });
    expect(JSON.parse(r.stdout)).toEqual({ count: direct });
  });

  it.each([
    ['a directory', () => dir, /it is a directory/],
    ['a missing file', () => join(dir, 'nope.json'), /no such file/],
    ['an ELF binary', () => file(readFileSync(process.execPath).subarray(0, 4096)), /not valid JSON/],
    ['an empty file', () => file(''), /is empty/],
    ['JSON that is a number', () => file('42'), /must be a JSON object/],
  ])('HELD: %s is exit 2, one line naming the file, no raw control bytes, nothing sent', async (_what, path, message) => {
    const r = await run(['opportunities', 'count', '--filter-file', path()]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(sent()).toEqual([]);
  });

  it('a file that is not valid UTF-8 is refused (exit 2), not sent with U+FFFD in place of its bytes', async () => {
    // {"name": "S9I\xfflong"}: one byte that is not UTF-8. readFileSync(…, 'utf8') turns it into U+FFFD in silence,
    // and svc asks for a name the user never wrote. Import refuses such a row ("not valid UTF-8").
    const path = file(Buffer.concat([Buffer.from('{"name": "S9I'), Buffer.from([0xff]), Buffer.from('long"}')]));
    const r = await run(['opportunities', 'count', '--filter-file', path, '--explain']);
    expect(r.stdout, 'the filter svc would send').not.toContain('\ufffd');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/UTF-8/);
  });

  it('a file that starts with a UTF-8 byte-order mark (Notepad) is read, or refused naming the mark, never with an invisible character quoted', async () => {
    const r = await run(['opportunities', 'count', '--filter-file', file('\ufeff{"name": "S9I long"}')]);
    expect(r.stderr, JSON.stringify(r.stderr)).not.toContain('\ufeff');
    if (r.code === 0) {
      expect(JSON.parse(r.stdout)).toEqual({ count: 1 });
      return;
    }
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/byte.order mark|BOM/i);
  });
});

/**
 * Resolves once the process waits on a FIFO: blocked opening it (/proc/PID/wchan, or openat in
 * /proc/PID/syscall), or (the fix: svc opens it without blocking and waits in its event loop) holding it open.
 */
function blockedOnFifo(pid: number, path: string): Promise<void> {
  const openat = process.arch === 'arm64' ? '56' : '257';
  const holds = (): boolean => {
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
  return new Promise((resolve, reject) => {
    let seen = 0;
    const t = setInterval(() => {
      try {
        const wchan = readFileSync(`/proc/${pid}/wchan`, 'utf8');
        const nr = readFileSync(`/proc/${pid}/syscall`, 'utf8').split(' ')[0];
        seen = wchan.includes('wait_for_partner') || nr === openat || holds() ? seen + 1 : 0;
        if (seen >= 3) (clearInterval(t), resolve());
      } catch (err) {
        clearInterval(t);
        reject(err as Error);
      }
    }, 20);
  });
}

const canSee = ((): boolean => {
  try {
    readFileSync(`/proc/${process.pid}/syscall`, 'utf8');
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!canSee)('--filter-file names a FIFO (skipped without /proc/PID/syscall)', () => {
  async function fifo(): Promise<string> {
    const path = join(dir, `fifo${n++}`);
    await new Promise<void>((resolve, reject) => {
      const p = spawn('mkfifo', [path]);
      p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`mkfifo exit ${code}`))));
      p.on('error', reject);
    });
    return path;
  }

  it('HELD: svc reads the filter a writer puts into the FIFO (as `svc … --filter-file <(jq …)` does)', async () => {
    const path = await fifo();
    const svc = spawned.start(['opportunities', 'count', '--filter-file', path]);
    await blockedOnFifo(svc.child.pid ?? 0, path);
    const fd = openSync(path, 'w');
    writeSync(fd, '{"name": "S9I long"}');
    closeSync(fd);
    const end = await svc.ended;
    expect(end.code, end.stderr).toBe(0);
    expect(JSON.parse(end.stdout)).toEqual({ count: 1 });
  });

  it('SIGTERM while svc waits for a writer ends it with exit 130 ("interrupted"), rather than being ignored until someone writes', async () => {
    const path = await fifo();
    // If SIGTERM is ignored, the helper's SIGKILL after 5 s ends svc (signal SIGKILL, no exit code).
    const svc = spawned.start(['opportunities', 'count', '--filter-file', path], { killMs: 5_000 });
    await blockedOnFifo(svc.child.pid ?? 0, path);
    svc.child.kill('SIGTERM');
    const end = await svc.ended;
    expect(end.signal, `svc ignored SIGTERM for ${end.ms} ms, blocked in open(2) on the FIFO, until SIGKILL`).toBeNull();
    expect(end.code).toBe(130);
    expect(end.stdout).toBe('');
  });
});

describe('nesting and size of JSON filters', () => {
  const deep = (levels: number): string => `${'["NOT",'.repeat(levels)}{"ID": {">": 0}}${']'.repeat(levels)}`;

  it.each([[5_000], [100_000]])(
    '--filter-file with %i levels of ["NOT", …] is exit 2 naming the nesting (as --filter says "nests deeper than 200 levels"), not "unexpected error: Maximum call stack size exceeded"',
    async (levels) => {
      const r = await run(['opportunities', 'count', '--filter-file', file(deep(levels))]);
      expect(r.stderr).not.toMatch(/unexpected error|call stack/i);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/nest|deep/i);
      expect(sent()).toEqual([]);
    },
  );

  it('--filter-json with 5,000 levels, and --explain of it, is exit 2 naming the nesting, not an unexpected error', async () => {
    for (const extra of [[], ['--explain']]) {
      const r = await run(['opportunities', 'count', '--filter-json', deep(5_000), ...extra]);
      expect(r.stderr).not.toMatch(/unexpected error|call stack/i);
      expect(r.code, r.stderr).toBe(2);
    }
  });

  it('HELD: 40 levels (past the sandbox\'s 32) reach the sandbox and come back as one line, exit 1', async () => {
    const r = await run(['opportunities', 'count', '--filter-file', file(deep(40))]);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/nests deeper than 32/);
  });

  it('HELD: 100,000 conditions (a 2 MB file) are answered at once with one line, exit 1', async () => {
    const conditions = Array.from({ length: 100_000 }, (_, i) => `{"ID":{"!=":${i}}}`).join(',');
    const started = performance.now();
    const r = await run(['opportunities', 'count', '--filter-file', file(`["AND",${conditions}]`)]);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/more than 1,000 conditions/);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('HELD: 100,000 conditions typed as --filter (1.3 MB) compile and get the same answer', async () => {
    const text = Array.from({ length: 100_000 }, (_, i) => `ID != ${i}`).join(' and ');
    const r = await run(['opportunities', 'count', '--filter', text]);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/more than 1,000 conditions/);
  });

  it('HELD: an IN list of 10,000 values pages with --all; 10,001 values is one line naming the limit', async () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => longA - 5_000 + i);
    const r = await run(['opportunities', 'query', '--all', '--page-size', '1', '--fields', 'ID', '-o', 'json', '--filter', `name ~~ "S9I%" and ID in (${ids.join(', ')})`]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ ID: longA }]);
    const over = await run(['opportunities', 'count', '--filter', `ID in (${[...ids, 1].join(',')})`]);
    expect(over.code).toBe(1);
    expect(lines(over.stderr)).toHaveLength(1);
    expect(over.stderr).toMatch(/10,001 values; the sandbox allows at most 10,000/);
  });
});

describe('patterns that make a backtracking engine hang, against a 200,000-character text', () => {
  it.each([
    ['description ~ "^(a+)+$"', 0],
    ['description ~* "^(a|aa)+$"', 0],
    ['description ~ "(a*)*b"', 0],
    ['description like "%a%a%a%a%a%a%a%a%a%a%a%a%b"', 0],
    ['description ilike "%A%A%A%A%A%A%A%A%A%A%A%A%!"', 1],
  ])('HELD: %s is answered in time (count %i)', async (filter, want) => {
    const started = performance.now();
    expect(await count(['--filter', `name = "S9I long" and ${filter}`])).toBe(want);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('quotes and backslashes at the ends of texts', () => {
  it.each([
    [String.raw`name = "\"quoted\""`, () => quoted],
    [String.raw`name = '"quoted"'`, () => quoted],
    [String.raw`description = 'it\'s'`, () => quoted],
    [String.raw`description = "it's"`, () => quoted],
    [String.raw`name = "ends\\"`, () => backslash],
    [String.raw`name = 'ends\\'`, () => backslash],
    [String.raw`description = "\\starts"`, () => backslash],
    [String.raw`name like "ends\\\\"`, () => backslash],
    [String.raw`name ~ "s\\\\$"`, () => backslash],
    [String.raw`description ~ "^\\\\s"`, () => backslash],
  ])('HELD: %s finds the one record', async (filter, id) => {
    const r = await run(['opportunities', 'query', '--all', '--fields', 'ID', '-o', 'json', '--filter', filter]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ ID: id() }]);
  });

  it.each([[String.raw`name = "ends\"`], [String.raw`name = 'ends\'`], ['name = "a" "b"'], ['name = ends\\']])(
    'HELD: %s is exit 2 with a caret, nothing sent',
    async (filter) => {
      const r = await run(['opportunities', 'count', '--filter', filter]);
      expect(r.code).toBe(2);
      expect(lines(r.stderr)).toHaveLength(3);
      expect(r.stderr).toMatch(/\^/);
      expect(sent()).toEqual([]);
    },
  );
});
