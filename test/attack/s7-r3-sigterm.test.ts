/**
 * s7-r3: SIGTERM after a267e15 ("SIGTERM is exit 130 for every command"):
 * main.ts now keeps a SIGTERM listener for the whole run, so Node never
 * applies SIGTERM's default action again. A command with a handler of its own
 * (bulk writes, export, sync, watch, sign-in, the sandbox) sees only the first
 * SIGTERM; every later one is swallowed by main.ts's listener, which does
 * nothing once a command handles SIGTERM. Before, the third SIGTERM ended svc
 * (the absorber took the second), as the third Ctrl-C still does.
 * A REAL node:http server on 127.0.0.1 that never answers a write stands in
 * for a service that hangs; svc is spawned as `node bin/svc.js`.
 * Tests marked HELD pass today; the others fail until svc is fixed.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Running, useHostileServer, useSpawnedSvc } from './s7-support.js';

let writes = 0;
let writeArrived: () => void = () => undefined;
// Reads answer an empty list at once; a write (PUT) is never answered.
const hostile = useHostileServer(
  (req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'PUT') {
        writes++;
        writeArrived();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[]');
    });
  },
  { closeConnectionsAfterEach: true },
);
afterEach(() => {
  writes = 0;
});
const { start } = useSpawnedSvc({ url: hostile.url, killMs: 18_000 });

/** `svc accounts import` of two rows, with SVC_BULK_GRACE=`grace`; its config dir also holds the rows file. */
function startImport(grace: string): Running {
  const dir = mkdtempSync(join(tmpdir(), 's7-r3-term-'));
  const rows = join(dir, 'rows.csv');
  writeFileSync(rows, 'lastname,currency\nAcme,EUR\nBeta,EUR\n');
  return start(['accounts', 'import', '--from', rows], { configDir: dir, env: { SVC_BULK_GRACE: grace } });
}

const until = (cond: () => boolean, child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    const check = (): void => {
      if (cond()) resolve();
    };
    child.stderr?.on('data', check);
    check();
  });

describe('SIGTERM sent again', () => {
  it('svc accounts import with a write that hangs (SVC_BULK_GRACE=60s): SIGTERM sent again and again ends svc, as Ctrl-C pressed again does', async () => {
    const arrived = new Promise<void>((r) => (writeArrived = r));
    const run = startImport('60s');
    await arrived;
    run.child.kill('SIGTERM');
    await until(() => run.stderr().includes('starting no more rows'), run.child);
    // The user (or a supervisor script) insists: SIGTERM every 200 ms, 10 times.
    const t0 = Date.now();
    let sent = 0;
    const t = setInterval(() => {
      if (sent++ < 10) run.child.kill('SIGTERM');
    }, 200);
    hostile.timers.add(t);
    const r = await run.ended;
    const ms = Date.now() - t0;
    // Today: still running 18 s later (killed by the test with SIGKILL); every SIGTERM after the first is swallowed
    // by main.ts's listener. Three Ctrl-C end it (Node's default action for the third SIGINT).
    expect(r.signal, `exit ${r.code} (${r.signal}) after ${ms} ms: ${run.stderr()}`).not.toBe('SIGKILL');
    expect(ms).toBeLessThan(5_000);
    expect([130, null]).toContain(r.code);
  }, 25_000);

  it('HELD: the same with SIGINT (Ctrl-C pressed again and again) ends svc', async () => {
    const arrived = new Promise<void>((r) => (writeArrived = r));
    const run = startImport('60s');
    await arrived;
    run.child.kill('SIGINT');
    await until(() => run.stderr().includes('starting no more rows'), run.child);
    const t0 = Date.now();
    let sent = 0;
    const t = setInterval(() => {
      if (sent++ < 10) run.child.kill('SIGINT');
    }, 200);
    hostile.timers.add(t);
    const r = await run.ended;
    expect(r.signal).not.toBe('SIGKILL');
    expect(Date.now() - t0).toBeLessThan(5_000);
  }, 25_000);

  it('HELD: one SIGTERM (SVC_BULK_GRACE=2s): the write in flight is cut after the grace, exit 130, one summary line, no generic second message', async () => {
    const arrived = new Promise<void>((r) => (writeArrived = r));
    const run = startImport('2s');
    await arrived;
    run.child.kill('SIGTERM');
    const r = await run.ended;
    expect(r.code, run.stderr()).toBe(130);
    expect(run.stderr().match(/^svc: interrupted by SIGTERM/gm) ?? [], run.stderr()).toHaveLength(1);
    expect(run.stderr()).not.toContain('unexpected');
    expect(writes).toBe(1);
  }, 25_000);
});
