/**
 * The lag window on a sandbox whose clock the test moves: each poll asks for
 * `lastmodified >= cursor − lag` (the cursor the highest lastmodified a poll
 * fetched less the time its scan took, never the local clock), the hashes of records that fell out of the window are
 * dropped from the cursor file, and the known IDs are kept as ranges.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IdSet } from '../../src/watch/id-set.js';
import { freshState, lowerBound, pruneWindow } from '../../src/watch/state.js';
import { createRandom } from '../../src/util/random.js';
import { sandboxCli } from '../helpers/cli.js';
import { table } from '../../src/sandbox/schema.js';
import { createAccount, onQueryBody, readCursor, tempDir, updateAccount, upsert } from './support.js';

let clock = Date.UTC(2026, 0, 5, 12);
const cli = sandboxCli({ now: () => clock });
const { sandbox } = cli;
/** svc measures a poll's scan on the test's clock too: time passes only where the test moves it. */
const run: typeof cli.run = (argv, o = {}) => cli.run(argv, { monotonic: () => clock, ...o });
const T0 = Math.floor(clock / 1000);

/** The lastmodified bounds the watch's record queries asked for, in order. */
function boundsAsked(): (number | null)[] {
  return sandbox()
    .sandbox.hooks.requests.filter((r) => r.method === 'POST' && (r.body as { fields?: Record<string, string> }).fields?.firstname)
    .map((r) => {
      const m = /"lastmodified":\{">=":(\d+)\}/.exec(JSON.stringify(r.body));
      return m ? Number(m[1]) : null;
    });
}

describe('the lag window', () => {
  it('asks from cursor − lag, and keeps hashes only for the records inside it', async () => {
    const s = sandbox();
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--filter', 'lastname ~ "^WW-"', '--fields', 'ID,lastname,firstname', '--lag', '60s', '--once', '--cursor-file', cursor];
    const a = await createAccount(s, 'WW-a');
    expect((await run(args)).stdout).toBe(`${upsert(a, 'WW-a')}\n`);
    expect(readCursor(cursor)).toMatchObject({ cursor: T0, window: [[a, T0, expect.any(Number)]], known: [a, a] });

    clock += 3_600_000;
    const b = await createAccount(s, 'WW-b');
    expect((await run(args)).stdout).toBe(`${upsert(b, 'WW-b')}\n`);
    // a changed more than the lag before the newest change seen: out of the window, and no longer hashed.
    expect(readCursor(cursor)).toMatchObject({ cursor: T0 + 3600, window: [[b, T0 + 3600, expect.any(Number)]], known: [a, b] });

    clock += 30_000;
    await updateAccount(s, b, { firstname: 'Hamburg' });
    expect((await run(args)).stdout).toBe(`${upsert(b, 'WW-b', 'Hamburg')}\n`);
    clock += 10_000;
    expect((await run(args)).stdout).toBe(''); // b again (inside the window), unchanged: no line
    expect(boundsAsked()).toEqual([null, T0 - 60, T0 + 3600 - 60, T0 + 3630 - 60]);
  });

  it('a raised --lag asks from no lower than the window it kept, so nothing is written twice; the window widens as the cursor moves on', async () => {
    const s = sandbox();
    const cursor = join(tempDir(), 'c');
    const args = (lag: string) => ['accounts', 'watch', '--filter', 'lastname ~ "^WL-"', '--fields', 'ID,lastname,firstname', '--lag', lag, '--once', '--cursor-file', cursor];
    const t = Math.floor(clock / 1000);
    const a = await createAccount(s, 'WL-a');
    expect((await run(args('60s'))).stdout).toBe(`${upsert(a, 'WL-a')}\n`);
    clock += 3_600_000;
    const b = await createAccount(s, 'WL-b');
    expect((await run(args('60s'))).stdout).toBe(`${upsert(b, 'WL-b')}\n`);
    // a fell out of the 60 s window and its hash was dropped: a poll from cursor - 2h would write it again.
    expect(readCursor(cursor)).toMatchObject({ cursor: t + 3600, edge: t + 3540, window: [[b, t + 3600, expect.any(Number)]] });
    clock += 600_000;
    await updateAccount(s, b, { firstname: 'Lahr' });
    expect((await run(args('2h'))).stdout).toBe(`${upsert(b, 'WL-b', 'Lahr')}\n`);
    // The window now keeps what a 2 h lag asks for again, from the kept edge up.
    expect(readCursor(cursor)).toMatchObject({ cursor: t + 4200, edge: t + 3540 });
    clock += 7_200_000;
    expect((await run(args('2h'))).stdout).toBe('');
    expect(readCursor(cursor)).toMatchObject({ cursor: t + 4200, edge: t + 3540 });
    await updateAccount(s, a, { firstname: 'Murg' });
    expect((await run(args('2h'))).stdout).toBe(`${upsert(a, 'WL-a', 'Murg')}\n`);
    const c = Math.floor(clock / 1000);
    expect(readCursor(cursor)).toMatchObject({ cursor: c, edge: c - 7200 });
    expect((await run(args('2h'))).stdout).toBe(''); // b is inside the 2 h window with its hash: not written again
    expect(boundsAsked()).toEqual([null, t - 60, t + 3540, t + 3540, t + 3540, c - 7200]);
  });

  it('an edge ahead of this machine\'s clock (a hand\'s edit, or the clock stepped back) is dropped: a change made now is written', async () => {
    const s = sandbox();
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--filter', 'lastname ~ "^WE-"', '--fields', 'ID,lastname,firstname', '--lag', '60s', '--once', '--cursor-file', cursor];
    const a = await createAccount(s, 'WE-a');
    expect((await run(args)).stdout).toBe(`${upsert(a, 'WE-a')}\n`);
    const saved = JSON.parse(readFileSync(cursor, 'utf8')) as Record<string, unknown>;
    // svc's own clock is the real one here (the sandbox's is the test's): an edge a day ahead of it.
    writeFileSync(cursor, JSON.stringify({ ...saved, edge: Math.floor(Date.now() / 1000) + 86_400 }));
    clock += 5_000;
    await updateAccount(s, a, { firstname: 'Olpe' });
    expect((await run(args)).stdout).toBe(`${upsert(a, 'WE-a', 'Olpe')}\n`);
    expect(boundsAsked().at(-1)).toBe(Number(saved.cursor) - 60);
  });

  it('a lag of 0 asks from the cursor itself', async () => {
    const s = sandbox();
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--filter', 'lastname ~ "^WZ-"', '--fields', 'ID,lastname,firstname', '--lag', '0', '--once', '--cursor-file', cursor];
    const a = await createAccount(s, 'WZ-a');
    expect((await run(args)).stdout).toBe(`${upsert(a, 'WZ-a')}\n`);
    clock += 5_000;
    await updateAccount(s, a, { firstname: 'Ulm' });
    expect((await run(args)).stdout).toBe(`${upsert(a, 'WZ-a', 'Ulm')}\n`);
    expect(boundsAsked()).toEqual([null, Math.floor(clock / 1000) - 5]);
  });
});

describe('a record that changes while a poll runs', () => {
  it.each(['ID pass', 'record pass'])('and still matches is never written as deleted (changed as the %s arrives)', async (when) => {
    const s = sandbox();
    const p = when === 'ID pass' ? 'WRU-' : 'WRF-';
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--filter', `lastname ~ "^${p}"`, '--fields', 'ID,lastname,firstname', '--lag', '10s', '--once', '--cursor-file', cursor];
    const r = await createAccount(s, `${p}r`);
    expect((await run(args)).stdout).toBe(`${upsert(r, `${p}r`)}\n`);
    clock += 3_600_000;
    const other = await createAccount(s, `${p}s`);
    expect((await run(args)).stdout).toBe(`${upsert(other, `${p}s`)}\n`);
    // r is outside the window now; it changes (and still matches) as the chosen request of the next poll arrives.
    clock += 60_000;
    const stop = onQueryBody(s, (body) => {
      const fields = (body as { fields?: Record<string, string> }).fields ?? {};
      const pass = fields.firstname ? 'record pass' : fields.lastmodified ? 'ID pass' : 'reconcile';
      if (pass !== when) return;
      s.sandbox.db.prepare(`UPDATE ${table('demo', 'accounts')} SET firstname = 'Moved', lastmodified = ? WHERE ID = ?`).run(Math.floor(clock / 1000), r);
    });
    const lines = [(await run(args)).stdout, (await run(args)).stdout].join('');
    stop();
    expect(lines).toBe(`${upsert(r, `${p}r`, 'Moved')}\n`);
  });
});

describe('a change made behind a later poll\'s scan', () => {
  /** How far the third case's monotonic clock is stepped back (as the scan goes on). */
  let stepped = 0;
  it.each([
    ['svc\'s clock runs with the test\'s', 'WB-', (): number => clock, true],
    // A clock that is not monotonic after all would make the scan look short: the cursor stays where it was.
    ['svc\'s clock runs backwards', 'WBR-', (): number => -clock, false],
    ['svc\'s clock is stepped back an hour during the scan', 'WBS-', (): number => clock - stepped, false],
  ])('reaches the next poll with --lag 0 (%s): the cursor is the newest stamp less the time to its page', async (_how, p, monotonic, moves) => {
    const s = sandbox();
    stepped = 0;
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--filter', `lastname ~ "^${p}"`, '--fields', 'ID,lastname,firstname', '--page-size', '1', '--lag', '0', '--once', '--cursor-file', cursor];
    const [a, b, c] = [await createAccount(s, `${p}a`), await createAccount(s, `${p}b`), await createAccount(s, `${p}c`)] as [number, number, number];
    const began = Math.floor(clock / 1000);
    expect((await run(args, { monotonic })).stdout).toBe(`${[upsert(a, `${p}a`), upsert(b, `${p}b`), upsert(c, `${p}c`)].join('\n')}\n`);
    clock += 60_000;
    for (const id of [a, b, c]) await updateAccount(s, id, { firstname: 'One' });
    const changedAt = Math.floor(clock / 1000);
    // The second poll asks for its records a page (one record) at a time: as B's is asked (A written), A changes
    // ten minutes on; as C's is asked, C changes ten more minutes on. The scan took twenty minutes by svc's clock.
    const touch = (id: number, firstname: string): void => {
      clock += 600_000;
      s.sandbox.db.prepare(`UPDATE ${table('demo', 'accounts')} SET firstname = ?, lastmodified = ? WHERE ID = ?`).run(firstname, Math.floor(clock / 1000), id);
    };
    let pages = 0;
    const stop = onQueryBody(s, (body) => {
      if (!(body as { fields?: Record<string, string> }).fields?.firstname) return;
      pages++;
      if (pages === 2) {
        touch(a, 'Behind');
        stepped = 3_600_000;
      }
      if (pages === 3) touch(c, 'Ahead');
    });
    const second = await run(args, { monotonic });
    stop();
    expect(second.stdout).toBe(`${[upsert(a, `${p}a`, 'One'), upsert(b, `${p}b`, 'One'), upsert(c, `${p}c`, 'Ahead')].join('\n')}\n`);
    // C's stamp (twenty minutes on) less the twenty minutes the scan took to its page: the stamp of the changes
    // it began with; a clock seen going backwards leaves the first poll's cursor.
    expect(readCursor(cursor)).toMatchObject({ cursor: moves ? changedAt : began });
    // A's change behind the scan, once; B and C are fetched again and, unchanged since their lines, not written.
    expect((await run(args, { monotonic })).stdout).toBe(`${upsert(a, `${p}a`, 'Behind')}\n`);
    expect((await run(args, { monotonic })).stdout).toBe('');
  });
});

describe('the state', () => {
  it('keeps the known IDs as rising ranges: adds, merges and deletions agree with a Set, and the ranges come back (seeded)', () => {
    const seed = Math.floor(Math.random() * 2 ** 31);
    const random = createRandom(seed);
    const sorted = (xs: Iterable<number>): number[] => [...xs].sort((x, y) => x - y);
    for (let trial = 0; trial < 200; trial++) {
      const span = trial % 3 === 0 ? 60 : trial % 3 === 1 ? 400 : 100_000;
      const model = new Set<number>();
      const ids = new IdSet();
      for (let step = 0, n = random.int(0, 300); step < n; step++) {
        const what = random.int(0, 9);
        if (what < 6) {
          const id = random.int(0, span);
          model.add(id);
          ids.add(id);
        } else if (what < 7) {
          const other = new IdSet();
          for (let k = random.int(0, 20), id = random.int(0, span); k > 0; k--, id += random.int(1, 3)) {
            other.add(id);
            model.add(id);
          }
          ids.addAll(other);
        } else {
          const gone = sorted(new Set(Array.from({ length: random.int(0, 15) }, () => random.int(0, span))));
          for (const id of gone) model.delete(id);
          ids.deleteSorted(gone);
        }
        expect(ids.size, `seed ${seed}`).toBe(model.size);
      }
      const ranges = ids.ranges();
      for (let i = 1; i < ranges.length; i += 2) expect(ranges[i - 1]!, `seed ${seed}`).toBeLessThanOrEqual(ranges[i]!);
      for (let i = 2; i < ranges.length; i += 2) expect(ranges[i]!, `seed ${seed}`).toBeGreaterThan(ranges[i - 1]! + 1);
      expect([...ids], `seed ${seed}`).toEqual(sorted(model));
      for (let k = 0; k < 50; k++) {
        const id = random.int(-1, span + 1);
        expect(ids.has(id), `seed ${seed}`).toBe(model.has(id));
      }
      const back = IdSet.fromRanges(ranges);
      expect([back.size, [...back]], `seed ${seed}`).toEqual([model.size, sorted(model)]);
      const other = new Set(Array.from({ length: 40 }, () => random.int(0, span)));
      const otherIds = new IdSet();
      for (const id of sorted(other)) otherIds.add(id);
      expect(ids.minus(otherIds), `seed ${seed}`).toEqual(sorted(model).filter((id) => !other.has(id)));
    }
    const ids = new IdSet();
    for (const id of [5, 3, 4, 9, 10, 1]) ids.add(id);
    expect(ids.ranges()).toEqual([1, 1, 3, 5, 9, 10]);
    // Not IDs: left out, the ranges intact.
    for (const bad of [Number.NaN, 1.5, Infinity, 2 ** 60]) ids.add(bad);
    expect([ids.size, ids.ranges()]).toEqual([6, [1, 1, 3, 5, 9, 10]]);
  });

  it('holds a million consecutive IDs as one range, appended in rising order', () => {
    const ids = new IdSet();
    for (let id = 1; id <= 1_000_000; id++) ids.add(id);
    expect([ids.size, ids.ranges()]).toEqual([1_000_000, [1, 1_000_000]]);
    ids.deleteSorted([1, 500_000, 1_000_000]);
    expect([ids.size, ids.ranges()]).toEqual([999_997, [2, 499_999, 500_001, 999_999]]);
  });

  it('never asks before --since, and prunes below the bound', () => {
    const st = freshState(1000);
    expect(lowerBound(st, 300)).toBe(1000);
    st.cursor = 1200;
    expect(lowerBound(st, 300)).toBe(1000);
    st.cursor = 5000;
    st.window.set(1, { lm: 4699, hash: 1 });
    st.window.set(2, { lm: 4700, hash: 2 });
    expect(pruneWindow(st, 300)).toBe(true);
    expect([...st.window.keys()]).toEqual([2]);
  });
});
