/**
 * watch r5: later polls that run while the family changes under them, at
 * every request (the ID pass, each one-record page of the record pass, the
 * reconcile): updates, a record leaving the filter and coming back, deletes,
 * creations, each stamped by the service's clock, which moves 0–3 s a
 * request, the scan's length measured on the same clock. Every poll is its
 * own run through --cursor-file (a restart at each poll). After two quiet
 * polls the feed, replayed, must be the family as it is, and no line may
 * repeat the line before it for the same ID (a change missed shows in the
 * first, a line written twice in the second: the lines carry lastmodified,
 * so a record changed back to the values of its last line, which svc may
 * write again once its hash left the window, is not a repeat). Seeded; the seed is in the name.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { table } from '../../src/sandbox/schema.js';
import { createRandom } from '../../src/util/random.js';
import { sandboxCli } from '../helpers/cli.js';
import { onQuery, tempDir } from '../watch/support.js';
import { changingFamily, replay } from './watch-r5-support.js';

const seed = Number(process.env.SEED ?? Math.floor(Math.random() * 2 ** 31));
let clock = Date.UTC(2026, 4, 13, 12);
const cli = sandboxCli({ now: () => clock });
const { sandbox } = cli;
const run: typeof cli.run = (argv, o = {}) => cli.run(argv, { monotonic: () => clock, now: () => clock, ...o });


describe(`watch r5: later polls under a stream of changes at every request (seed ${seed})`, () => {
  it.each([
    [0, 1],
    [3, 1],
    [0, 1000],
  ])('--lag %is, --reconcile-every %i: the replayed feed is the family, nothing written twice', async (lag, reconcileEvery) => {
    // Without a reconcile, a deleted record is never reported: that run leaves records, never deletes them.
    const deletes = reconcileEvery === 1;
    const s = sandbox();
    const random = createRandom(seed + lag + reconcileEvery);
    const p = `R5C${lag}r${reconcileEvery}-`;
    const t = table('demo', 'accounts');
    const db = s.sandbox.db;
    const stamp = (): number => Math.floor(clock / 1000);
    const { ids, mutate } = changingFamily(s, p, random, stamp, { initial: 12, keep: 4, deletes: deletes });
    const log: string[] = [];
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--filter', `lastname ~ "^${p}"`, '--fields', 'ID,lastname,firstname,lastmodified', '--page-size', '1', '--lag', String(lag), '--reconcile-every', String(reconcileEvery), '--once', '--cursor-file', cursor];
    const feed: string[] = [];
    const poll = async (chaos: boolean): Promise<void> => {
      const stop = onQuery(s, (n) => {
        if (!chaos) return;
        clock += random.int(0, 3000);
        if (random.chance(0.5)) log.push(`poll ${feed.length} request ${n}: ${mutate()} at ${stamp()}`);
      });
      const r = await run(args);
      stop();
      expect(r.code, r.stderr).toBe(0);
      feed.push(...r.stdout.split('\n').filter((l) => l !== ''));
      clock += random.int(0, 4000);
      if (chaos && random.chance(0.5)) log.push(`between: ${mutate()} at ${stamp()}`);
    };
    for (let i = 0; i < 12; i++) await poll(i > 0);
    await poll(false);
    await poll(false);
    const { model, actual, repeats } = replay(s, p, feed);
    const why = `seed ${seed}\n${log.join('\n')}\nfeed:\n${feed.join('\n')}`;
    expect(model, why).toEqual(actual);
    expect(repeats, why).toEqual([]);
  });
});
