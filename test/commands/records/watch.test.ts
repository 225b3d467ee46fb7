/**
 * `svc <family> watch`: flags → options without commander, then a scripted
 * series of changes on a real sandbox → exactly those lines, in order, across
 * restarts with --cursor-file (SIGINT, SIGTERM), the first run's snapshot,
 * and what it refuses (cursor files that are not its own, bad durations).
 */
import { existsSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findFamily } from '../../../src/catalogue/index.js';
import { toWatchOptions } from '../../../src/commands/records/watch/options.js';
import { sandboxCli } from '../../helpers/cli.js';
import { createAccount, del, deleteAccount, LineCapture, nextQuery, readCursor, signalProcesses, tempDir, updateAccount, upsert } from '../../watch/support.js';

const accounts = findFamily('accounts')!;
const { sandbox, run } = sandboxCli();

describe('flags → options', () => {
  const opts = (flags: Record<string, unknown>) => toWatchOptions(accounts, { filter: [], filterJson: [], ...flags });

  it('has defaults: 10s interval, 5m lag, a comparison of IDs every 30 polls', () => {
    const o = opts({});
    expect([o.intervalMs, o.lagSeconds, o.reconcileEvery, o.pageSize, o.once]).toEqual([10_000, 300, 30, 1000, false]);
  });

  it('takes durations, a lag of 0, --since forms, --once and --fields', () => {
    const o = opts({ interval: '50ms', lag: '0', reconcileEvery: '1', since: '2026-11-01T08:30Z', once: true, fields: 'ID,lastname' });
    expect([o.intervalMs, o.lagSeconds, o.reconcileEvery, o.since, o.once, o.selected?.map((s) => s.name)]).toEqual([50, 0, 1, '2026-11-01T08:30Z', true, ['ID', 'lastname']]);
    expect(opts({ lag: '1.5s' }).lagSeconds).toBe(2);
    for (const since of ['now', 'today', '-2h', '90m', '2026-11-01']) expect(opts({ since }).since).toBe(since);
  });

  it.each([
    [{ interval: '0' }, /--interval must be more than zero/],
    [{ interval: '-1s' }, /invalid --interval '-1s'/],
    [{ interval: '99999999w' }, /--interval '99999999w' is too long/],
    [{ interval: '1e9' }, /invalid --interval/],
    [{ lag: '-5m' }, /invalid --lag/],
    [{ lag: '400d' }, /--lag '400d' is too long/],
    [{ reconcileEvery: '0' }, /--reconcile-every takes a whole number from 1/],
    [{ cursorFile: '' }, /--cursor-file needs a file name/],
    [{ fields: 'ID,lastnme' }, /lastnme/],
  ])('refuses %o (exit 2)', (flags, message) => {
    expect(() => opts(flags)).toThrow(message);
    try {
      opts(flags);
    } catch (err) {
      expect((err as { exitCode: number }).exitCode).toBe(2);
    }
  });

  it.each([
    ['yesterdayish', "svc: --since: 'yesterdayish' is not a date; use 2026-11-01, 2026-11-01T08:30, -7d, today, now or a duration ago such as 2h\n"],
    ['2026-02-30', "svc: --since: '2026-02-30' is not a valid date\n"],
    ['-1w2d', "svc: --since: '-1w2d' is not a date; use 2026-11-01, 2026-11-01T08:30, -7d, today, now or a duration ago such as 2h\n"],
  ])('refuses --since %s before anything is sent (exit 2)', async (since, stderr) => {
    const cursor = join(tempDir(), 'c');
    expect(await run(['accounts', 'watch', '--since', since, '--once', '--cursor-file', cursor])).toEqual({ code: 2, stdout: '', stderr });
    expect(existsSync(cursor)).toBe(false);
  });

  it('refuses a family without lastmodified', () => {
    expect(() => toWatchOptions(findFamily('binfiles')!, {})).toThrow(/binfiles records have no lastmodified field/);
  });
});

const WATCH = ['accounts', 'watch', '--filter', 'lastname ~ "^W16"', '--fields', 'ID,lastname,firstname', '--interval', '50ms', '--reconcile-every', '1'];

/** Starts an in-process watch; answers its stdout, a way to signal it and its end. */
async function startWatch(args: readonly string[]) {
  const stdout = new LineCapture();
  const processes = signalProcesses();
  const polling = nextQuery(sandbox());
  const done = run([...WATCH, ...args], { stdout, processes });
  // --since now is the moment the watch starts: changes are made once it polls.
  await Promise.race([polling, done]);
  return { stdout, processes, done };
}

describe('a scripted series of changes', () => {
  it('yields exactly those events, in order, across restarts with --cursor-file', async () => {
    const s = sandbox();
    const cursor = join(tempDir(), 'accounts.cursor');
    const expected: string[] = [];

    // Run 1, from now: a create, an update, an update that changes nothing shown, a create and a delete.
    const w1 = await startWatch(['--cursor-file', cursor, '--since', 'now']);
    const a = await createAccount(s, 'W16-a');
    expected.push(upsert(a, 'W16-a'));
    await w1.stdout.waitLines(1);
    await updateAccount(s, a, { firstname: 'Hamburg' });
    expected.push(upsert(a, 'W16-a', 'Hamburg'));
    await w1.stdout.waitLines(2);
    await updateAccount(s, a, { firstname: 'Hamburg', currency: 'EUR' }); // lastmodified moves, nothing shown changes: no line
    const b = await createAccount(s, 'W16-b');
    expected.push(upsert(b, 'W16-b'));
    await w1.stdout.waitLines(3);
    await deleteAccount(s, b);
    expected.push(del(b));
    await w1.stdout.waitLines(4);
    w1.processes.raise('SIGINT');
    const r1 = await w1.done;
    expect(r1.code, r1.stderr).toBe(130);
    expect(r1.stderr).toBe('svc: interrupted by SIGINT\n');
    expect(readCursor(cursor)).toMatchObject({ family: 'accounts', started: true });

    // While it is down: a's lastname leaves the filter.
    await updateAccount(s, a, { lastname: 'Z16-a' });
    expected.push(del(a));

    // Run 2 resumes: the leaving edit is a delete; then a create and two updates of one record.
    const w2 = await startWatch(['--cursor-file', cursor]);
    await w2.stdout.waitLines(1);
    const c = await createAccount(s, 'W16-c');
    expected.push(upsert(c, 'W16-c'));
    await w2.stdout.waitLines(2);
    for (const [i, firstname] of ['Köln', 'Ulm'].entries()) {
      await updateAccount(s, c, { firstname });
      expected.push(upsert(c, 'W16-c', firstname));
      await w2.stdout.waitLines(3 + i);
    }
    w2.processes.raise('SIGTERM');
    const r2 = await w2.done;
    expect(r2.code, r2.stderr).toBe(130);

    // Run 3, one poll: nothing changed, nothing written.
    const r3 = await run([...WATCH, '--cursor-file', cursor, '--once']);
    expect(r3).toEqual({ code: 0, stdout: '', stderr: '' });

    expect([...w1.stdout.lines(), ...w2.stdout.lines()]).toEqual(expected);
    expect(existsSync(`${cursor}.svc-lock`)).toBe(false);
  });

  it('writes every matching record first on a run without a cursor or --since (a snapshot), then only changes', async () => {
    const s = sandbox();
    const x = await createAccount(s, 'W16S-x');
    const y = await createAccount(s, 'W16S-y', 'Bonn');
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--filter', 'lastname ~ "^W16S"', '--fields', 'ID,lastname,firstname', '--once', '--reconcile-every', '1', '--cursor-file', cursor];
    const first = await run(args);
    expect(first.stdout.trim().split('\n'), first.stderr).toEqual([upsert(x, 'W16S-x'), upsert(y, 'W16S-y', 'Bonn')]);
    await deleteAccount(s, x);
    expect((await run(args)).stdout.trim()).toBe(del(x));
    expect((await run(args)).stdout).toBe('');
  });

  it('finds a deletion at the next comparison of IDs, every --reconcile-every polls, counted across runs', async () => {
    const s = sandbox();
    const x = await createAccount(s, 'W16R-x');
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--filter', 'lastname ~ "^W16R"', '--fields', 'ID,lastname,firstname', '--once', '--reconcile-every', '3', '--cursor-file', cursor];
    expect((await run(args)).stdout).toBe(`${upsert(x, 'W16R-x')}\n`); // the snapshot compares IDs too
    await deleteAccount(s, x);
    const idPasses = (): number => s.sandbox.hooks.requests.filter((r) => (JSON.stringify(r.body) ?? '').includes('"fields":{"ID":"ID"}')).length;
    const outputs: string[] = [];
    for (let i = 0; i < 3; i++) outputs.push((await run(args)).stdout);
    expect(outputs).toEqual(['', '', `${del(x)}\n`]);
    expect(idPasses()).toBe(2); // the first run's, and the third poll's after it
  });

  it('without --fields writes whole records, and --since takes a time before the changes', async () => {
    const s = sandbox();
    const z = await createAccount(s, 'W16T-z');
    const r = await run(['accounts', 'watch', '--filter', 'lastname ~ "^W16T"', '--since', '10m', '--once']);
    const line = JSON.parse(r.stdout) as { op: string; family: string; record: Record<string, unknown> };
    expect([line.op, line.family, line.record.ID, line.record.lastname, typeof line.record.lastmodified]).toEqual(['upsert', 'accounts', z, 'W16T-z', 'number']);
    expect((await run(['accounts', 'watch', '--filter', 'lastname ~ "^W16T"', '--since', 'tomorrow', '--once'])).stdout).toBe('');
  });
});

describe('what it refuses', () => {
  const args = (cursor: string): string[] => ['accounts', 'watch', '--fields', 'ID,lastname', '--once', '--cursor-file', cursor];

  it('a cursor file of another family, filter or fields (exit 2), and --since on a cursor file in use', async () => {
    const cursor = join(tempDir(), 'c');
    expect((await run(['accounts', 'watch', '--since', 'now', '--fields', 'ID,lastname', '--once', '--cursor-file', cursor])).code).toBe(0);
    const other = await run(['accounts', 'watch', '--fields', 'ID,firstname', '--once', '--cursor-file', cursor]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/belongs to a watch with other options .*use the same --filter, --search and --fields, or another --cursor-file/);
    const family = await run(['contacts', 'watch', '--fields', 'ID,lastname', '--once', '--cursor-file', cursor]);
    expect([family.code, family.stderr]).toEqual([2, `svc: the cursor file ${cursor} belongs to a watch of accounts, not contacts; give another --cursor-file\n`]);
    const since = await run([...args(cursor), '--since', 'now']);
    expect(since.code).toBe(2);
    expect(since.stderr).toMatch(/--since starts a new watch/);
  });

  it.each<[string, string, RegExp]>([
    ['not JSON', '{"format":"svc-watch-cursor",', /is damaged \(not JSON/],
    ['an array', '[]', /is damaged \(not an object\)/],
    ['prototype keys', '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}', /is damaged \(not a watch cursor\)/],
    ['a range of a quadrillion IDs', JSON.stringify({ format: 'svc-watch-cursor', version: 1, family: 'accounts', query: {}, cursor: null, floor: null, started: true, sinceReconcile: 0, known: [0, 1e15], window: [] }), /more than 20000000 known IDs/],
    ['falling ranges', JSON.stringify({ format: 'svc-watch-cursor', version: 1, family: 'accounts', query: {}, cursor: null, floor: null, started: true, sinceReconcile: 0, known: [5, 9, 1, 2], window: [] }), /not a rising range/],
    ['a window entry of the wrong kind', JSON.stringify({ format: 'svc-watch-cursor', version: 1, family: 'accounts', query: {}, cursor: 1, floor: null, started: true, sinceReconcile: 0, known: [], window: [[1, 'x', 5]] }), /window: an entry/],
    ...[
      ['a snapshot on a watch past its first poll', true, [5, 1, null]],
      ['a snapshot of the wrong kind', false, { after: 5, cursor: 1, low: null }],
      ['a snapshot at a negative ID', false, [-1, null, null]],
      ['a snapshot with a fractional cursor', false, [5, 1.5, null]],
      ['a snapshot with a fractional lowest stamp', false, [5, null, 1.5]],
      ['a snapshot with a member too many', false, [5, 1, 2, 3]],
      ['a snapshot of two members', false, [5, 1]],
    ].map(([what, started, snapshot]) => [
      what as string,
      JSON.stringify({ format: 'svc-watch-cursor', version: 1, family: 'accounts', query: {}, cursor: null, floor: null, started, sinceReconcile: 0, snapshot, known: [], window: [] }),
      /snapshot not \[ID, lastmodified or null, lastmodified or null\] of a first poll/,
    ] as [string, string, RegExp]),
    ['a fractional cursor', JSON.stringify({ format: 'svc-watch-cursor', version: 1, family: 'accounts', query: {}, cursor: 1.5, floor: null, started: true, sinceReconcile: 0, known: [], window: [] }), /cursor or floor/],
    ...[
      ['an edge of text', true, '100'],
      ['a fractional edge', true, 99.5],
      ['an edge of prototype keys', true, { __proto__: { polluted: 1 } }],
      ['an edge before the first poll ended', false, 100],
    ].map(([what, started, edge]) => [
      what as string,
      JSON.stringify({ format: 'svc-watch-cursor', version: 1, family: 'accounts', query: {}, cursor: 200, floor: null, started, sinceReconcile: 0, known: [], window: [], edge }),
      /edge not a number of seconds of a watch past its first poll/,
    ] as [string, string, RegExp]),
  ])('a damaged cursor file: %s (exit 2, file untouched, nothing sent)', async (_what, text, message) => {
    const cursor = join(tempDir(), 'c');
    writeFileSync(cursor, text);
    const r = await run(args(cursor));
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/remove it to start the watch afresh\n$/);
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect(readFileSync(cursor, 'utf8')).toBe(text);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a huge cursor file, a symbolic link and a directory (exit 2)', async () => {
    const dir = tempDir();
    const huge = join(dir, 'huge');
    writeFileSync(huge, '');
    truncateSync(huge, 300 * 1024 * 1024); // sparse: no disk used
    expect(await run(args(huge))).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/is damaged \(314572800 bytes, more than svc ever writes\)/) });
    const target = join(dir, 'target');
    writeFileSync(target, 'secret');
    const link = join(dir, 'link');
    symlinkSync(target, link);
    expect(await run(args(link))).toMatchObject({ code: 2, stderr: expect.stringMatching(/is a symbolic link; give the path of a regular file/) });
    expect(readFileSync(target, 'utf8')).toBe('secret');
    expect(await run(args(dir))).toMatchObject({ code: 2, stderr: expect.stringMatching(/is not a regular file/) });
  });

  it('a second watch on the same cursor file (exit 1, naming the first)', async () => {
    const cursor = join(tempDir(), 'c');
    const w = await startWatch(['--cursor-file', cursor, '--since', 'now']);
    await createAccount(sandbox(), 'W16-lock');
    await w.stdout.waitLines(1);
    const second = await run([...WATCH, '--cursor-file', cursor, '--once']);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`^svc: another watch with the cursor file ${cursor} is running \\(pid ${process.pid} \\('svc accounts watch .*', since .*\\); lock ${cursor}\\.svc-lock\\); stop it first`));
    w.processes.raise('SIGINT');
    expect((await w.done).code).toBe(130);
  });

  it('-o other than ndjson and --jq (exit 2)', async () => {
    expect(await run(['-o', 'csv', 'accounts', 'watch', '--once'])).toMatchObject({ code: 2, stderr: 'svc: watch writes NDJSON only; drop -o csv\n' });
    expect((await run(['--jq', '.', 'accounts', 'watch', '--once'])).code).toBe(2);
  });

  it('--print-request shows the first page asked for, and sends nothing', async () => {
    const r = await run(['accounts', 'watch', '--filter', 'ID > 5', '--fields', 'lastname', '--print-request']);
    expect(JSON.parse(r.stdout)).toEqual({ filters: { ID: { '>': 5 } }, sort: ['+ID'], limit: 1000, fields: { lastname: 'lastname', ID: 'ID', lastmodified: 'lastmodified' } });
  });
});

describe('a failing service', () => {
  it('is polled again, then the watch exits 1 in one line, its cursor written', async () => {
    const s = sandbox();
    const cursor = join(tempDir(), 'c');
    s.sandbox.hooks.failNext({ method: 'POST', path: '/api/v1/accounts', times: 10_000, fault: { status: 500, body: 'broken' } });
    // --interval once (given twice it is refused): 10ms instead of WATCH's 50ms.
    const r = await run([...WATCH.map((a) => (a === '50ms' ? '10ms' : a)), '--page-size', '2', '--cursor-file', cursor]);
    s.sandbox.hooks.reset();
    expect([r.code, r.stdout]).toEqual([1, '']);
    const lines = r.stderr.trim().split('\n');
    expect(lines.slice(0, 3).every((l) => /^svc: poll failed \(.*\); trying again in \d+ms$/.test(l)), r.stderr).toBe(true);
    expect(lines.at(-1)).toMatch(/^svc: accounts watch stopped: the service kept failing \(.*\) over 4 polls; the cursor is at the last line written$/);
    expect(readCursor(cursor)).toMatchObject({ started: false, cursor: null });
  });
});
