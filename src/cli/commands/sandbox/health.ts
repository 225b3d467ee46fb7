/**
 * The sandbox's liveness check (`GET /_sandbox/health`) with node:http(s), so
 * status and start load no HTTP client library; and a small poll loop.
 */
import { readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';

/** True when `<origin>/_sandbox/health` answers 200 within `timeoutMs`; trusts `caFile` under https. */
export async function checkHealth(origin: string, caFile?: string, timeoutMs = 1500): Promise<boolean> {
  const url = `${origin}/_sandbox/health`;
  let ca: Buffer | undefined;
  try {
    ca = caFile ? readFileSync(caFile) : undefined;
  } catch {
    return false;
  }
  return new Promise<boolean>((resolve) => {
    const onResponse = (res: import('node:http').IncomingMessage): void => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
      res.on('error', () => resolve(false));
    };
    const req = url.startsWith('https:') ? httpsGet(url, { ca, agent: false, timeout: timeoutMs }, onResponse) : httpGet(url, { agent: false, timeout: timeoutMs }, onResponse);
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

/** Calls `check` every `intervalMs` until it is true (then true) or `timeoutMs` passed (then false). */
export async function pollUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, intervalMs = 100): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
