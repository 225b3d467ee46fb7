/**
 * s9 attack on `svc <family> watch`: a reader that stops reading (a consumer
 * stuck on the network, a paused `less`): the pipe fills and the watch waits
 * to write. SIGTERM then (systemctl stop, a supervisor) must still end it at
 * once with exit 130, not leave it blocked until SIGKILL. HELD today.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { insertAccounts } from '../sync/support.js';
import { nextQuery, readCursor, tempDir } from '../watch/support.js';

const { sandbox } = sandboxCli();

describe('s9 watch: a reader that stops reading', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('HELD: %s while the pipe is full ends the watch at once, exit 130, the cursor file written', async (signal) => {
    const s = sandbox();
    // 2,000 records of ~250 bytes: far more than a pipe holds (64 KB).
    insertAccounts(s, 2000, Math.floor(Date.now() / 1000) - 3600, `S9stall${signal}`.padEnd(200, 'x'));
    const cursor = join(tempDir(), 'c');
    const polling = nextQuery(s);
    const child = spawn(process.execPath, ['bin/svc.js', 'accounts', 'watch', '--filter', `lastname ~ "^S9stall${signal}"`, '--cursor-file', cursor, '--page-size', '100'], {
      env: { ...process.env, SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pause(); // nobody reads
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    await polling;
    // A few pages later the pipe is full and svc waits to write.
    await new Promise<void>((resolve) => {
      let n = 0;
      s.sandbox.hooks.onArrival = () => {
        if (++n === 6) resolve();
      };
    });
    s.sandbox.hooks.onArrival = undefined;
    let stuck = false;
    const end = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      const watchdog = setTimeout(() => {
        stuck = true;
        child.kill('SIGKILL');
      }, 5_000);
      child.on('close', (code, sig) => {
        clearTimeout(watchdog);
        resolve({ code, signal: sig });
      });
      child.kill(signal);
    });
    expect(stuck, 'still running 5 s after the signal').toBe(false);
    expect([end.code, stderr.trim().split('\n').at(-1)]).toEqual([130, `svc: interrupted by ${signal}`]);
    expect(readCursor(cursor)).toMatchObject({ format: 'svc-watch-cursor', started: false });
  }, 30_000);
});
