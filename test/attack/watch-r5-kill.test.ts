/**
 * watch r5: the built svc killed (SIGKILL) at a seeded line of a later poll,
 * then run again from its cursor file. The later poll's cursor file is saved
 * when it ends and before a page that brings an ID it did not know (a record
 * that came into the filter): the lines written after the last save may be
 * written again, never one before it, and none is missed. 200 records change
 * and one record, between them in ID order, comes into the filter.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { table } from '../../src/sandbox/schema.js';
import { createRandom } from '../../src/util/random.js';
import { sandboxCli } from '../helpers/cli.js';
import { insertAccounts } from '../sync/support.js';
import { idsOf, spawnSvc, tempDir } from '../watch/support.js';

const seed = Number(process.env.SEED ?? Math.floor(Math.random() * 2 ** 31));
const { sandbox, run } = sandboxCli();

describe(`watch r5: a later poll killed at a random line (seed ${seed})`, () => {
  it('the run after it repeats only the lines after the last save, and misses none', async () => {
    const s = sandbox();
    const random = createRandom(seed);
    const t = table('demo', 'accounts');
    const old = Math.floor(Date.now() / 1000) - 3600;
    const low = insertAccounts(s, 100, old, 'R5K');
    const [mid] = insertAccounts(s, 1, old, 'R5Q') as [number];
    const high = insertAccounts(s, 100, old, 'R5K');
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--filter', 'lastname ~ "^R5K "', '--fields', 'ID,lastname,description', '--page-size', '1', '--cursor-file', cursor];
    const first = await run([...args, '--once']);
    expect(idsOf(first.stdout)).toEqual([...low, ...high]);
    const now = Math.floor(Date.now() / 1000);
    s.sandbox.db.prepare(`UPDATE ${t} SET description = 'changed', lastmodified = ? WHERE lastname LIKE 'R5K %'`).run(now);
    s.sandbox.db.prepare(`UPDATE ${t} SET lastname = 'R5K joined', lastmodified = ? WHERE ID = ?`).run(now, mid);
    const all = [...low, mid, ...high];
    const killAt = random.int(1, 190);
    const child = spawnSvc(s, [...args, '--interval', '10s']);
    await child.waitLines(killAt, 30_000);
    child.child.kill('SIGKILL');
    const end = await child.exited;
    expect(end.signal).toBe('SIGKILL');
    const killed = idsOf(child.lines());
    const resumed = await run([...args, '--once']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const again = idsOf(resumed.stdout);
    const what = `seed ${seed}: killed after ${killed.length} lines (asked at ${killAt}); the run after wrote ${again.length}: ${again.slice(0, 5).join(',')}…`;
    // None missed: every changed record is in one run or the other, in ID order in each.
    expect([...new Set([...killed, ...again])].sort((a, b) => a - b), what).toEqual(all);
    // Repeats: a suffix of the poll, from the last save (the poll's start, or the page that brought `mid`).
    // (The save before mid's page may be done with its line not out yet; a poll done before the kill saved it all.)
    const saves = [0, ...(killed.length >= all.indexOf(mid) ? [all.indexOf(mid)] : []), ...(killed.length === all.length ? [all.length] : [])];
    expect(saves.map((k) => all.slice(k)), what).toContainEqual(again);
  }, 30_000);
});
