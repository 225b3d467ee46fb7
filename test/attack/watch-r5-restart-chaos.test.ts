/**
 * watch r5: later polls stopped and restarted through --cursor-file while
 * the family changes under them. Each round is one run: at every request the
 * service's clock moves 0–3 s (the scan is measured on it) and half the time
 * a record changes (an update, a record leaving the filter or coming back, a
 * delete, a creation); at a seeded request the run gets SIGINT or SIGTERM, or
 * thirteen 429s in a row (the client tries 4 times, a page of one record is asked 3 times) make the poll fail and be tried again (--interval 5ms).
 * After two quiet polls the feed, replayed, must be the family as it is, and
 * no line may repeat the one before it for the same ID (the lines carry
 * lastmodified: a repeat is a record written twice unchanged). Seeded.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { table } from '../../src/sandbox/schema.js';
import { createRandom } from '../../src/util/random.js';
import { sandboxCli } from '../helpers/cli.js';
import { LineCapture, onQuery, readCursor, signalProcesses, tempDir } from '../watch/support.js';
import { changingFamily, replay } from './watch-r5-support.js';

const seed = Number(process.env.SEED ?? Math.floor(Math.random() * 2 ** 31));
let clock = Date.UTC(2026, 4, 15, 12);
const cli = sandboxCli({ now: () => clock });
const { sandbox } = cli;
const run: typeof cli.run = (argv, o = {}) => cli.run(argv, { monotonic: () => clock, now: () => clock, ...o });


describe(`watch r5: later polls interrupted (SIGINT, SIGTERM) or failing mid-way, restarted from the cursor file (seed ${seed})`, () => {
  it.each([0, 2])('--lag %is: the replayed feed is the family, nothing written twice', async (lag) => {
    const s = sandbox();
    const random = createRandom(seed + 17 * lag);
    const p = `R5R${lag}-`;
    const t = table('demo', 'accounts');
    const db = s.sandbox.db;
    const stamp = (): number => Math.floor(clock / 1000);
    const { ids, mutate } = changingFamily(s, p, random, stamp, { initial: 15, keep: 5, deletes: true });
    const log: string[] = [];
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--filter', `lastname ~ "^${p}"`, '--fields', 'ID,lastname,firstname,lastmodified', '--page-size', '1', '--lag', String(lag), '--reconcile-every', '1', '--interval', '5ms', '--once', '--cursor-file', cursor];
    const feed: string[] = [];
    const round = async (i: number, chaos: boolean): Promise<void> => {
      const stdout = new LineCapture();
      const processes = signalProcesses();
      const stopAt = chaos && random.chance(0.6) ? random.int(1, 8) : -1;
      const burstAt = chaos && random.chance(0.4) ? random.int(1, 8) : -1;
      const stop = onQuery(s, (n) => {
        if (!chaos) return;
        clock += random.int(0, 3000);
        if (random.chance(0.5)) log.push(`round ${i} request ${n}: ${mutate()} at ${stamp()}`);
        if (n === burstAt) {
          log.push(`round ${i} request ${n}: 13 × 429`);
          s.sandbox.hooks.failNext({ method: 'POST', path: '/api/v1/accounts', times: 13, fault: { status: 429, body: 'slow down', headers: { 'Retry-After': '0' } } });
        }
        if (n === stopAt) {
          const sig = random.chance(0.5) ? 'SIGINT' : 'SIGTERM';
          log.push(`round ${i} request ${n}: ${sig}`);
          processes.raise(sig);
        }
      });
      const r = await run(args, { stdout, processes });
      stop();
      log.push(`round ${i}: exit ${r.code}, ${stdout.lines().length} lines, cursor ${String(readCursor(cursor).cursor)}${r.stderr ? `; stderr ${r.stderr.trim()}` : ""}`);
      expect([0, 130, 143], `${r.stderr}\n${log.join('\n')}`).toContain(r.code);
      feed.push(...stdout.lines());
      clock += random.int(0, 4000);
      if (chaos && random.chance(0.5)) log.push(`between: ${mutate()} at ${stamp()}`);
    };
    for (let i = 0; i < 14; i++) await round(i, i > 0);
    await round(14, false);
    await round(15, false);
    const { model, actual, repeats } = replay(s, p, feed);
    if (process.env.R5_SHOW) console.log(log.filter((l) => !l.includes(": update") && !l.includes(": flip") && !l.includes(": create") && !l.includes(": delete")).join("\n"));
    const why = `seed ${seed}\n${log.join('\n')}\nfeed:\n${feed.join('\n')}`;
    expect(model, why).toEqual(actual);
    expect(repeats, why).toEqual([]);
  }, 20_000);
});
