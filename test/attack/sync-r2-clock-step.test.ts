/**
 * A later run's cursor is the latest lastmodified it fetched less the time its
 * scan took. Measured on the wall clock, a step back during the scan (an NTP
 * correction of a clock that ran fast, a VM resumed, an admin fixing the
 * date) made the scan seem shorter than it was, and the cursor landed after
 * a change made behind the scan: that change never reached the copy, exit 0
 * every run. The scan is measured on a clock that is never stepped.
 *
 * Three clocks here: the service's (the sandbox stamps lastmodified with it);
 * svc's wall clock, which runs with the service's until it is stepped back 20
 * minutes in the middle of the scan; and svc's monotonic clock, which runs on.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { table } from '../../src/sandbox/schema.js';
import { sandboxCli } from '../helpers/cli.js';
import { create, readCopy, tempDir, update } from '../sync/support.js';

let serviceClock = Date.now() + 3_600_000;
let localClock = serviceClock;
let monotonicClock = 0;
const { sandbox, run } = sandboxCli({ now: () => serviceClock });

describe('the cursor of a later run when the local clock is stepped back during the scan', () => {
  it.each(['sqlite', 'duckdb'])('%s: a change made behind the scan still reaches the next run (default --lag)', async (engine) => {
    const s = sandbox();
    const prefix = `Step ${engine}`;
    const target = join(tempDir(), `step.${engine}`);
    const args = ['accounts', 'sync', '--into', target, '--filter', `lastname ~~ '${prefix} %'`, '--fields', 'ID,lastname,description', '--page-size', '1', '-o', 'json'];
    const tick = (ms: number): void => {
      serviceClock += ms;
      localClock += ms;
      monotonicClock += ms;
    };
    tick(3_600_000);
    const [a, b, c] = [await create(s, 'accounts', { lastname: `${prefix} A`, currency: 'EUR', type: 1 }), await create(s, 'accounts', { lastname: `${prefix} B`, currency: 'EUR', type: 1 }), await create(s, 'accounts', { lastname: `${prefix} C`, currency: 'EUR', type: 1 })];
    const now = { now: () => localClock, monotonic: () => monotonicClock };
    expect((await run(args, now)).code).toBe(0);
    tick(3_600_000);
    for (const id of [a, b, c]) await update(s, 'accounts', id!, { description: 'second' });
    const touch = (id: number, text: string): void => {
      tick(600_000);
      s.sandbox.db.prepare(`UPDATE ${table('demo', 'accounts')} SET description = ?, lastmodified = ? WHERE ID = ?`).run(text, Math.floor(serviceClock / 1000), id);
    };
    // One record a page, in ID order: as the scan asks for B's page, A changes behind it; as it asks for C's, C
    // changes ahead of it, and svc's clock is stepped back the 20 minutes the scan has taken so far.
    let asked = 0;
    s.sandbox.hooks.onArrival = (method, url) => {
      if (method !== 'POST' || !url.endsWith('/api/v1/accounts')) return;
      asked++;
      if (asked === 2) touch(a!, 'behind the scan');
      if (asked === 3) {
        touch(c!, 'ahead of the scan');
        localClock -= 1_200_000;
      }
    };
    const second = await run(args, now);
    s.sandbox.hooks.onArrival = undefined;
    expect(second.code, second.stderr).toBe(0);
    const third = await run(args, now);
    expect(third.code, third.stderr).toBe(0);
    const copy = await readCopy(target, 'accounts');
    const held = copy.rows.find((r) => r.ID === a)?.description;
    expect(held, `second run: ${second.stdout}; third run: ${third.stdout}; A's change stamped ${Math.floor(serviceClock / 1000) - 600}`).toBe('behind the scan');
  });
});
