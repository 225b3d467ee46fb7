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
  'SVC_BODY_SLOW',
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

const DAY = '(Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = '(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
/** The three forms of an HTTP-date (RFC 9110 §5.6.7): IMF-fixdate, the obsolete RFC 850 form, asctime (which means GMT). */
const IMF_FIXDATE = new RegExp(`^${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT$`);
const RFC_850 = new RegExp(`^${LONG_DAY}, \\d{2}-${MONTH}-\\d{2} ${TIME} GMT$`);
const ASCTIME = new RegExp(`^${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4}$`);

/**
 * The wait a Retry-After header asks for, in ms: whole seconds (digits only)
 * or an HTTP-date (a past one means now). Undefined when absent or anything
 * else ("-5", "1.5", "+3", which Date.parse would take for dates long past):
 * then the normal backoff applies.
 */
export function retryAfterMs(header: string | string[] | undefined, nowMs: number): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Math.min(Number(value) * 1000, Number.MAX_SAFE_INTEGER);
  let at = Number.NaN;
  if (IMF_FIXDATE.test(value) || RFC_850.test(value)) at = Date.parse(value);
  else if (ASCTIME.test(value)) at = Date.parse(`${value} GMT`);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
