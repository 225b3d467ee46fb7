/**
 * The sandbox's liveness check (`GET /_sandbox/health`) through svc's one
 * HTTP client, and a small poll loop.
 */
import { version } from '../../version.js';

/**
 * The health route sits beside the instances, not under an interface root,
 * and the client only sends to `<instance>/{api,auth,oauth2}/v1/…`: with the
 * instance `<origin>/_sandbox`, this path climbs out of `api/v1` (the URL
 * parser resolves the dot segments before anything is sent).
 */
const HEALTH_INSTANCE = '/_sandbox';
const HEALTH_PATH = '/../../health';

/**
 * True when `<origin>/_sandbox/health` answers 200 within `timeoutMs` (with `token` as its `token` member,
 * when given: then it is that very sandbox, not another one now on the port); trusts `caFile` under https.
 */
export async function checkHealth(origin: string, caFile?: string, token?: string, timeoutMs = 1500): Promise<boolean> {
  const { createHttpClient } = await import('../../http/client.js');
  let client: ReturnType<typeof createHttpClient> | undefined;
  try {
    client = createHttpClient({
      instanceUrl: `${origin}${HEALTH_INSTANCE}`,
      userAgent: `svc/${version}`,
      timeoutMs,
      deadlineMs: timeoutMs,
      retry: { retries: 0 },
      caFile,
      // A local process: no proxy, and no CA beyond the sandbox's own.
      env: {},
    });
    const res = await client.request({ method: 'GET', root: 'api', path: HEALTH_PATH, auth: false });
    if (res.status !== 200 || token === undefined) {
      await res.body.dump();
      return res.status === 200;
    }
    const body = await res.json<{ token?: unknown }>();
    return typeof body === 'object' && body !== null && body.token === token;
  } catch {
    // Refused, timed out, an error status, an unreadable CA file: not (yet) healthy.
    return false;
  } finally {
    await client?.close().catch(() => undefined);
  }
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
