/**
 * A watch's first poll (the snapshot) on a sandbox whose clock the test
 * moves: interrupted, it goes on above the last ID it wrote, so it needs no
 * hash of what it wrote and the cursor file keeps only the hashes the next
 * poll needs; its cursor is the service's newest stamp as it began, so a
 * change made behind its scan reaches the next poll however long it ran.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { table } from '../../src/sandbox/schema.js';
import { sandboxCli } from '../helpers/cli.js';
import { insertAccounts } from '../sync/support.js';
import { idsOf, LineCapture, onQueryBody, readCursor, signalProcesses, spawnSvc, tempDir } from './support.js';

let clock = Date.UTC(2026, 2, 9, 12);
const { sandbox, run } = sandboxCli({ now: () => clock });

/** The newest lastmodified of every account (what the service's clock is as a watch begins). */
const newest = (): number => Number(sandbox().sandbox.db.prepare(`SELECT max(lastmodified) FROM ${table('demo', 'accounts')}`).pluck().get());

describe("a watch's first poll", () => {
  it('interrupted (SIGINT), goes on above the last ID written: every record once, and no hash kept of records outside the lag window', async () => {
    const s = sandbox();
    clock += 3_600_000;
    const ids = insertAccounts(s, 120, Math.floor(clock / 1000) - 2 * 86_400, 'Snap');
    insertAccounts(s, 1, Math.floor(clock / 1000), 'Recent'); // the service's clock as the watch begins: now
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--filter', 'lastname ~ "^Snap "', '--fields', 'ID,lastname', '--page-size', '10', '--once', '--cursor-file', cursor];
    const began = newest();
    const stdout = new LineCapture();
    const processes = signalProcesses();
    const done = run(args, { stdout, processes });
    await stdout.waitLines(40);
    processes.raise('SIGINT');
    const stopped = await done;
    expect(stopped.code, stopped.stderr).toBe(130);
    const before = stdout.lines();
    expect(before.length % 10).toBe(0);
    expect(before.length).toBeLessThan(120);
    expect(readCursor(cursor)).toMatchObject({ started: false, cursor: null, snapshot: [ids[before.length - 1], began, Math.floor(clock / 1000) - 2 * 86_400], window: [] });

    // Changes while it is down: one below where it stopped (for the next poll), one above (in this one).
    clock += 60_000;
    s.sandbox.db.prepare(`UPDATE ${table('demo', 'accounts')} SET description = 'x', lastname = ?, lastmodified = ? WHERE ID = ?`).run('Snap below', Math.floor(clock / 1000), ids[0]);
    const resumed = await run(args);
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = resumed.stdout.split('\n').filter((l) => l !== '');
    // Each record once, in ID order, across the two runs: none repeated, none missed.
    expect([...idsOf(before), ...idsOf(after)]).toEqual(ids);
    const state = readCursor(cursor);
    expect(state).toMatchObject({ started: true, snapshot: null, cursor: began, known: [ids[0], ids[119]] });
    expect(state.window).toEqual([]);
    // The change below where the first run stopped is the next poll's.
    const next = await run(args);
    expect(next.stdout).toBe(`${JSON.stringify({ op: 'upsert', family: 'accounts', record: { ID: ids[0], lastname: 'Snap below' } })}\n`);
  });

  it('takes as its cursor the newest stamp as it began: a change made behind its scan reaches the next poll, with --lag 0', async () => {
    const s = sandbox();
    clock += 3_600_000;
    const [a, b, c] = insertAccounts(s, 3, Math.floor(clock / 1000) - 86_400, 'Behind');
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--filter', 'lastname ~ "^Behind "', '--fields', 'ID,lastname,description', '--page-size', '1', '--lag', '0', '--once', '--cursor-file', cursor];
    const began = newest();
    // The pages of records are asked one at a time, in ID order. As B's is asked (A written), A changes ten
    // minutes on; as C's is asked, C changes ten more minutes on: the scan writes C stamped after A's change.
    const touch = (id: number, text: string): void => {
      clock += 600_000;
      s.sandbox.db.prepare(`UPDATE ${table('demo', 'accounts')} SET description = ?, lastmodified = ? WHERE ID = ?`).run(text, Math.floor(clock / 1000), id);
    };
    let pages = 0;
    s.sandbox.hooks.record = true;
    const stop = onQueryBody(s, (body) => {
      if (!('description' in ((body as { fields?: object }).fields ?? {}))) return;
      pages++;
      if (pages === 2) touch(a!, 'behind the scan');
      if (pages === 3) touch(c!, 'ahead of the scan');
    });
    const first = await run(args);
    stop();
    expect(first.code, first.stderr).toBe(0);
    expect(idsOf(first.stdout.split('\n').filter((l) => l !== ''))).toEqual([a, b, c]);
    expect(first.stdout).toContain('ahead of the scan');
    expect(first.stdout).not.toContain('behind the scan');
    // The cursor is the newest stamp before the touches: C's later one would put A's change below it.
    expect(readCursor(cursor)).toMatchObject({ cursor: began, snapshot: null });
    const second = await run(args);
    expect(second.code, second.stderr).toBe(0);
    // A's change, once; C is fetched again and, unchanged since its line, not written.
    expect(second.stdout).toBe(`${JSON.stringify({ op: 'upsert', family: 'accounts', record: { ID: a, lastname: 'Behind 0 "q", ü', description: 'behind the scan' } })}\n`);
  });

  it('killed (SIGKILL) far into a long snapshot, the built svc goes on from its last save: at most 50 pages written again, none missed', async () => {
    const s = sandbox();
    clock += 3_600_000;
    const ids = insertAccounts(s, 400, Math.floor(clock / 1000) - 86_400, 'Killed');
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--filter', 'lastname ~ "^Killed "', '--fields', 'ID,lastname', '--page-size', '1', '--once', '--cursor-file', cursor];
    const child = spawnSvc(s, args);
    await child.waitLines(120);
    child.child.kill('SIGKILL');
    const end = await child.exited;
    expect(end.signal).toBe('SIGKILL');
    const before = idsOf(child.lines());
    // Saved every 50 pages: the file holds where the last 50th page left it.
    const saved = readCursor(cursor).snapshot as [number, number];
    const at = ids.indexOf(saved[0]) + 1;
    expect(at % 50, `saved after ${at} lines`).toBe(0);
    expect(before.length - at).toBeGreaterThanOrEqual(0);
    expect(before.length - at).toBeLessThan(50);
    const resumed = await run(args);
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = idsOf(resumed.stdout.split('\n').filter((l) => l !== ''));
    // It goes on right above the saved ID: together, every record, the repeats only those written after the save.
    expect(after).toEqual(ids.filter((id) => id > saved[0]));
    expect(new Set([...before, ...after])).toEqual(new Set(ids));
  }, 60_000);
});
