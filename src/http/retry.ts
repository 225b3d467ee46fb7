/**
 * When and how long to wait before trying again: exponential backoff with
 * full jitter, `Retry-After` honoured, on connection failures and on
 * 429/502/503/504, for idempotent requests only.
 */

export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

const RETRY_CODES = new Set([
  // node:http (a dropped connection is ECONNRESET, "socket hang up" before any answer) and the system
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  // svc's own timeouts (node-transport.ts)
  'SVC_CONNECT_TIMEOUT',
  'SVC_HEADERS_TIMEOUT',
  'SVC_BODY_TIMEOUT',
  // undici (the proxy transport)
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

export interface RetryPolicy {
  /** Further attempts after the first. */
  readonly retries: number;
  readonly baseMs: number;
  readonly capMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 3, baseMs: 250, capMs: 8000 };

/** Whether a thrown error is a connection-level failure worth another try. */
export function isRetryableError(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  const code = e.cause?.code ?? e.code;
  return code !== undefined && RETRY_CODES.has(code);
}

/** Full-jitter backoff for attempt n (0-based): a random wait up to min(cap, base·2ⁿ). */
export function backoffMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** attempt);
  return Math.round(random() * ceiling);
}

/** The wait a Retry-After header asks for (seconds or an HTTP date), in ms; undefined when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, nowMs: number): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
