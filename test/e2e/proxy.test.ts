/**
 * The built svc through a real forward proxy, in a process of its own: the
 * proxy transport loads undici there as a user's svc does (in the test
 * process, other modules may have loaded parts of undici already).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/sandbox.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const s = useTestSandbox({ seedAccounts: 3 });

function svc(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`${root}bin/svc.js`, ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-proxy-')), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('svc behind a proxy', () => {
  let proxy: Server;
  let proxyUrl = '';
  const tunnels: string[] = [];
  beforeAll(async () => {
    // A forward proxy that opens CONNECT tunnels and refuses anything else.
    proxy = createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
      tunnels.push(req.url ?? '');
      const [host, port] = (req.url ?? '').split(':');
      const upstream = connect(Number(port), host ?? '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => proxy.close(() => r()));
  });

  it('sends its requests through HTTP_PROXY and answers as without it', async () => {
    const env = { SVC_URL: s.instanceUrl, SVC_TOKEN: s.token() };
    const direct = await svc(['accounts', 'count', '-o', 'json'], env);
    expect(direct).toMatchObject({ code: 0, stderr: '' });
    expect(tunnels).toEqual([]);
    const via = await svc(['accounts', 'count', '-o', 'json'], { ...env, HTTP_PROXY: proxyUrl });
    expect(via).toEqual(direct);
    expect(tunnels).toEqual([new URL(s.instanceUrl).host]);
    // NO_PROXY names the host: straight there again.
    expect(await svc(['accounts', 'count', '-o', 'json'], { ...env, HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' })).toEqual(direct);
    expect(tunnels).toHaveLength(1);
  });
});
