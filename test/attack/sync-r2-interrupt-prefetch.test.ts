/**
 * SIGINT while a later run at --concurrency 4 has its next changed pages in
 * flight (asked for before the first is written, and stalled on the
 * service): the built svc stops at once with exit 130 and one line, the
 * stalled requests are dropped, and a re-run converges. Needs `npm run build`.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli, tempConfigDir } from '../helpers/cli.js';
import { expectedRows, readCopy, tempDir } from '../sync/support.js';

const STALL_MS = 10_000;
const { sandbox, run } = sandboxCli();
const FIELDS = 'ID,lastname,description';

describe('SIGINT with the changed pages after the first in flight', () => {
  it.each(['sqlite', 'duckdb'])('%s: exit 130 at once, one line; the re-run converges', async (engine) => {
    const s = sandbox();
    const file = join(tempDir(), `int.${engine}`);
    const args = ['accounts', 'sync', '--into', file, '--fields', FIELDS, '--concurrency', '4', '--page-size', '3'];
    expect((await run(args)).code).toBe(0);
    const db = s.sandbox.db;
    const stamp = (db.prepare('SELECT max(lastmodified) AS m FROM "demo/accounts"').get() as { m: number }).m + 1;
    db.prepare(`UPDATE "demo/accounts" SET lastmodified = ?, description = 'interrupted ' || ID WHERE ID IN (SELECT ID FROM "demo/accounts" ORDER BY ID LIMIT 30)`).run(stamp);
    const env = { ...process.env, SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' };
    const child = spawn(process.execPath, ['bin/svc.js', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    let arrived = 0;
    let signalled = 0;
    s.sandbox.hooks.onArrival = (method, url) => {
      if (method !== 'POST' || !url.endsWith('/api/v1/accounts') || ++arrived <= 2) return;
      s.sandbox.hooks.failNext({ method: 'POST', path: '/api/v1/accounts', fault: { delayMs: STALL_MS } });
      if (!signalled) {
        signalled = Date.now();
        child.kill('SIGINT');
      }
    };
    const watchdog = setTimeout(() => child.kill('SIGKILL'), 2 * STALL_MS);
    const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    const took = Date.now() - signalled;
    clearTimeout(watchdog);
    s.sandbox.hooks.onArrival = undefined;
    expect(signalled, 'the chunks after the first page were asked for').toBeGreaterThan(0);
    expect(code, stderr).toBe(130);
    expect(stderr).toMatch(/^svc: interrupted by SIGINT/);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(took, `exit ${took} ms after SIGINT`).toBeLessThan(STALL_MS / 2);
    const again = await run(args);
    expect(again.code, again.stderr).toBe(0);
    const copy = await readCopy(file, 'accounts');
    expect(copy.rows).toEqual(expectedRows(await run(['accounts', 'query', '--all', '--fields', FIELDS, '-o', 'json']), copy.columns));
  }, 30_000);
});
