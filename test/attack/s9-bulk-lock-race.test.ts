/**
 * s9 attack on `svc accounts import`: two imports of one file into one
 * results file at once, as two overlapping cron runs of the README's
 * `import --from accounts.ndjson --key customernum --results results.ndjson
 * --resume` are. README: "`RESULTS.svc-lock` keeps a second import off the
 * same file" and "Never a duplicate"; `--key` "matches rows by that field
 * instead (an upsert): a row is created when no record has its value".
 *
 * svc reads the results file and looks the keys up before it takes the lock:
 * a run whose lookup answer is slow (here: a proxy holds the sandbox's answer
 * back) while another run imports the whole file acts on a plan that run made
 * stale, takes the lock it left, and creates every row again.
 *
 * The built svc, spawned (two processes, so the lock is a real one).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { countByKey, rowsFile, tempDir } from '../commands/records/import-support.js';
import { runSvc, startHoldingProxy, startSvc, svcEnv, type HoldingProxy } from './s9-bulk-support.js';

const { sandbox } = sandboxCli();
let proxy: HoldingProxy;
beforeAll(async () => {
  proxy = await startHoldingProxy(sandbox());
});
afterAll(async () => {
  await proxy.close();
});

describe('two imports of one file into one results file at once (cron runs that overlap)', () => {
  it('FAILS: an upsert by --key whose lookup answer comes after the other run finished creates every row a second time', async () => {
    const s = sandbox();
    const prefix = 'S9RACE-';
    const dir = tempDir();
    const n = 12;
    const file = rowsFile('accounts.ndjson', Array.from({ length: n }, (_, i) => JSON.stringify({ lastname: `Race ${i}`, customernum: `${prefix}${i}`, currency: 'EUR' })).join('\n') + '\n', dir);
    const results = join(dir, 'results.ndjson');
    const args = ['accounts', 'import', '--from', file, '--key', 'customernum', '--results', results, '--resume'];

    // Run B starts first; its lookup reaches the sandbox (no record has these keys yet), the answer is kept back.
    proxy.hold();
    const b = startSvc(args, svcEnv(s, { url: proxy.instanceUrl() }));
    await proxy.heldAnswer();
    // Run A, the other cron run, imports the whole file meanwhile.
    const a = await runSvc(args, svcEnv(s));
    const afterA = existsSync(results) ? readFileSync(results, 'utf8') : '(none)';
    proxy.release();
    const bEnd = await b.ended;
    const what = `A: exit ${a.code} ${JSON.stringify(a.stderr)}\nB: exit ${bEnd.code} ${JSON.stringify(bEnd.stderr)}\nresults after A:\n${afterA}`;

    // One of the two runs imports the file; the other is kept off by the lock, or finds every row in place.
    const counts = countByKey(s, prefix);
    expect(counts.size, what).toBe(n);
    // Today: every key twice, B "12 created" over A's records, A's results file truncated.
    expect([...counts.entries()].filter(([, c]) => c !== 1), what).toEqual([]);
  }, 30_000);

  it('passes: two runs started together without a slow network: one imports, the other is refused by the lock or finds the rows (each key once)', async () => {
    const s = sandbox();
    const prefix = 'S9PAIR-';
    const dir = tempDir();
    const n = 30;
    const file = rowsFile('accounts.ndjson', Array.from({ length: n }, (_, i) => JSON.stringify({ lastname: `Pair ${i}`, customernum: `${prefix}${i}`, currency: 'EUR' })).join('\n') + '\n', dir);
    const results = join(dir, 'results.ndjson');
    const args = ['accounts', 'import', '--from', file, '--key', 'customernum', '--results', results, '--resume', '--concurrency', '4'];
    const [a, b] = await Promise.all([runSvc(args, svcEnv(s)), runSvc(args, svcEnv(s))]);
    const what = `A: exit ${a.code} ${a.stderr}\nB: exit ${b.code} ${b.stderr}`;
    expect([...countByKey(s, prefix).values()].filter((c) => c !== 1), what).toEqual([]);
    expect(countByKey(s, prefix).size, what).toBe(n);
  }, 30_000);
});
