/**
 * The built svc through a real forward proxy, in a process of its own: the
 * proxy transport loads undici there as a user's svc does (in the test
 * process, other modules may have loaded parts of undici already).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useForwardProxy } from '../helpers/proxy.js';
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
  const proxy = useForwardProxy();
  const tunnels = proxy.tunnels;

  it('sends its requests through HTTP_PROXY and answers as without it', async () => {
    const env = { SVC_URL: s.instanceUrl, SVC_TOKEN: s.token() };
    const direct = await svc(['accounts', 'count', '-o', 'json'], env);
    expect(direct).toMatchObject({ code: 0, stderr: '' });
    expect(tunnels).toEqual([]);
    const via = await svc(['accounts', 'count', '-o', 'json'], { ...env, HTTP_PROXY: proxy.url() });
    expect(via).toEqual(direct);
    expect(tunnels).toEqual([new URL(s.instanceUrl).host]);
    // NO_PROXY names the host: straight there again.
    expect(await svc(['accounts', 'count', '-o', 'json'], { ...env, HTTP_PROXY: proxy.url(), NO_PROXY: '127.0.0.1' })).toEqual(direct);
    expect(tunnels).toHaveLength(1);
  });
});
