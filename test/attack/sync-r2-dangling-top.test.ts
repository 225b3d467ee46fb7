/**
 * At --concurrency above 1 every later run now sends the highest-ID query
 * (`sort: ['-ID'], limit 1`, the filter without its lastmodified condition)
 * beside the first changed page. When that page is not full (the usual later
 * run: few changes) the answer is not needed, but the query is neither
 * awaited nor aborted: it outlives the run. At exit svc closes its
 * connections, the query fails with a dropped connection, the client retries
 * it on a new one, and the process stays alive until the service answers a
 * question nobody will read. A service where that query is slow (a selective
 * filter: the service walks down the ID index to the first match) holds
 * every cron run that long after its summary.
 *
 * A real HTTP proxy in front of the sandbox makes the `-ID` queries slow;
 * svc (the built one, `npm run build`) talks to the proxy.
 */
import { spawn } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxCli, tempConfigDir } from '../helpers/cli.js';
import { tempDir, update } from '../sync/support.js';

const SLOW_MS = 5000;
const { sandbox, run } = sandboxCli();

interface Seen {
  readonly top: boolean;
  readonly at: number;
  closedEarly: boolean;
}
const seen: Seen[] = [];
let proxy: Server | undefined;
let proxyOrigin = '';

beforeAll(async () => {
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let top = false;
      try {
        const json = JSON.parse(body.toString() || 'null') as { sort?: unknown } | null;
        top = Array.isArray(json?.sort) && json.sort[0] === '-ID';
      } catch {
        top = false;
      }
      const entry: Seen = { top, at: Date.now(), closedEarly: false };
      if (req.method === 'POST') seen.push(entry);
      const forward = (): void => {
        if (res.destroyed) return;
        const target = new URL(req.url ?? '/', sandbox().sandbox.origin);
        const up = request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        up.on('error', () => res.destroy());
        up.end(body);
      };
      if (!top) return forward();
      const timer = setTimeout(forward, SLOW_MS);
      res.on('close', () => {
        if (!res.writableFinished) {
          entry.closedEarly = true;
          clearTimeout(timer);
        }
      });
    });
  });
  await new Promise<void>((r) => proxy?.listen(0, '127.0.0.1', () => r()));
  proxyOrigin = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
});
afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise<void>((r) => (proxy ? proxy.close(() => r()) : r()));
});

describe('a later run at --concurrency 4 with few changes', () => {
  it(`exits when its work is done, not after the unneeded highest-ID query (${SLOW_MS} ms on this service)`, async () => {
    const s = sandbox();
    const file = join(tempDir(), 'dangling.sqlite');
    const args = ['accounts', 'sync', '--into', file, '--fields', 'ID,lastname', '--concurrency', '4', '-o', 'json'];
    expect((await run(args)).code).toBe(0);
    const id = (s.sandbox.db.prepare('SELECT min(ID) AS id FROM "demo/accounts"').get() as { id: number }).id;
    await update(s, 'accounts', id, { lastname: 'Dangling top' });
    seen.length = 0;
    const env = { ...process.env, SVC_URL: `${proxyOrigin}/demo`, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' };
    const child = spawn(process.execPath, ['bin/svc.js', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let summaryAt = 0;
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      summaryAt ||= Date.now();
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const watchdog = setTimeout(() => child.kill('SIGKILL'), 3 * SLOW_MS);
    const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    const exitedAt = Date.now();
    clearTimeout(watchdog);
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ updated: 1 });
    const tops = seen.filter((q) => q.top);
    const afterSummary = tops.filter((q) => q.at >= summaryAt).length;
    const why = `${tops.length} highest-ID queries (${afterSummary} sent after the summary was printed, ${tops.filter((q) => q.closedEarly).length} dropped); exit ${exitedAt - summaryAt} ms after the summary`;
    expect(exitedAt - summaryAt, why).toBeLessThan(SLOW_MS / 2);
    expect(afterSummary, why).toBe(0);
  }, 30_000);
});
