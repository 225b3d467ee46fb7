/**
 * watch r5: this machine's wall clock stepped back a little (an NTP step of
 * two seconds) between two polls. The cursor svc computed from the service's
 * stamps (never ahead of this machine's clock when it was computed) is now a
 * second or two ahead of it, and a poll's first act is to pull such a cursor
 * back to this machine's clock. The window was pruned with the higher cursor
 * at the end of the poll before, so a record stamped in that slice — lag
 * seconds below the old cursor — is fetched again with no hash left, and its
 * line is written a second time although it did not change.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { createAccount, readCursor, tempDir, updateAccount, upsert } from '../watch/support.js';

let clock = Date.UTC(2026, 4, 11, 12);
/** This machine's wall clock: the service's, until the test steps it back. */
let wallStep = 0;
const cli = sandboxCli({ now: () => clock });
const { sandbox } = cli;
const run: typeof cli.run = (argv, o = {}) => cli.run(argv, { monotonic: () => clock, now: () => clock - wallStep, ...o });

describe('watch r5: this machine\'s clock stepped back 2 s between polls (default --lag 5m)', () => {
  it('writes nothing for records that did not change (the cursor it computed is pulled back below the window it pruned)', async () => {
    const s = sandbox();
    const T = Math.floor(clock / 1000);
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--filter', 'lastname ~ "^R5W-"', '--fields', 'ID,lastname,firstname', '--once', '--cursor-file', cursor];
    const a = await createAccount(s, 'R5W-a');
    expect((await run(args)).stdout).toBe(`${upsert(a, 'R5W-a')}\n`);
    clock += 99_000;
    await updateAccount(s, a, { firstname: 'Kiel' }); // stamped T+99
    expect((await run(args)).stdout).toBe(`${upsert(a, 'R5W-a', 'Kiel')}\n`);
    clock += 301_000;
    const b = await createAccount(s, 'R5W-b'); // stamped T+400
    expect((await run(args)).stdout).toBe(`${upsert(b, 'R5W-b')}\n`);
    // The window now starts at T+400-300 = T+100: a (T+99) is out of it, its hash dropped.
    expect(readCursor(cursor)).toMatchObject({ cursor: T + 400, window: [[b, T + 400, expect.any(Number)]] });
    // NTP steps this machine's clock back two seconds; nothing changes on the service.
    wallStep = 2_000;
    clock += 1_000;
    const next = await run(args);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout, 'a line written twice: a did not change since its line').toBe('');
  });
});
