/**
 * Every answer with status >= 400 becomes a typed error carrying the service's
 * text, mapped onto the exit-code table; network failures become NetworkError.
 */
import { ExitCode, SvcError, type ExitCodeValue } from '../errors.js';
import { shown } from '../util/shown.js';

const TEXT_LIMIT = 300;

function exitCodeFor(status: number): ExitCodeValue {
  if (status === 401 || status === 403) return ExitCode.auth;
  if (status === 404) return ExitCode.notFound;
  if (status === 409 || status === 410 || status === 412) return ExitCode.conflict;
  return ExitCode.failure;
}

/** The service's text on one line, shortened, with nothing in it that acts on a terminal. */
function oneLine(text: string): string {
  return shown(text.replace(/\s+/g, ' ').trim(), TEXT_LIMIT);
}

/** The service answered with an error status. */
export class HttpStatusError extends SvcError {
  constructor(
    readonly status: number,
    /** The service's text, one line. */
    readonly serviceText: string,
    readonly method: string,
    readonly url: string,
    /** What else to say after the text, e.g. the wait a Retry-After asked for. */
    note = '',
    /** The fix for a 401: a new login, or, for a token from SVC_TOKEN or a file, a valid token there. */
    refusedTokenFix = 'run svc login',
  ) {
    const hint = status === 401 ? ` (${refusedTokenFix})` : '';
    const said = serviceText ? `: ${serviceText}` : '';
    super(`${method} ${url} failed with ${status}${said}${hint}${note ? ` (${note})` : ''}`, exitCodeFor(status));
  }
}

/**
 * Builds the typed error for an error answer (the text is shortened to one
 * line); `retryAfterMs`, the wait the answer's Retry-After asked for, is named
 * when it is a second or more (svc gave up sooner, or was not allowed to retry).
 */
export function statusError(status: number, body: string, method: string, url: string, retryAfterMs?: number, refusedTokenFix?: string): HttpStatusError {
  const wait = retryAfterMs !== undefined && retryAfterMs >= 1000 ? `the service asked to retry after ${Math.ceil(retryAfterMs / 1000).toLocaleString('en-US')} s` : '';
  return new HttpStatusError(status, oneLine(body), method, url, wait, refusedTokenFix);
}

/** A 304 answer to a request that asked nothing of the kind (no If-None-Match, no If-Modified-Since). */
export function unaskedNotModified(method: string, url: string): HttpStatusError {
  return new HttpStatusError(304, 'Not Modified, though svc did not ask whether anything changed (no If-None-Match); a cache or proxy in between? check the instance URL', method, url);
}

/** What an answer that should be JSON was instead, for the message (its type, encoding and size). */
export interface AnswerShape {
  readonly contentType: string | undefined;
  readonly contentEncoding: string | undefined;
  readonly bytes: number;
}

/**
 * An answer svc asked JSON of that is not JSON: a proxy's sign-in page, an
 * empty body, a body cut short, bytes compressed without being asked.
 * A NetworkError (exit 1): there was no usable answer; for a write, its
 * outcome is unknown.
 */
export function notJsonError(method: string, url: string, shape: AnswerShape, parseMessage: string): NetworkError {
  const where = `${method} ${url}`;
  const enc = shape.contentEncoding?.trim().toLowerCase();
  const type = shape.contentType?.split(';')[0]?.trim();
  if (enc && enc !== 'identity') {
    return new NetworkError(`${where} answered content encoded as ${shown(enc, 40)}, which svc did not ask for, not JSON (a proxy in between? check the instance URL)`, 'SVC_NOT_JSON');
  }
  if (shape.bytes === 0) return new NetworkError(`${where} answered an empty body, not JSON (a proxy in between? check the instance URL)`, 'SVC_NOT_JSON');
  if (type && !/json/i.test(type)) return new NetworkError(`${where} answered ${shown(type, 60)}, not JSON (a proxy's page? check the instance URL)`, 'SVC_NOT_JSON');
  return new NetworkError(
    `${where} answered JSON that does not parse (${shown(parseMessage, 120)}); cut short, or a proxy in between? check the instance URL`,
    'SVC_NOT_JSON',
  );
}

/** An answer nested deeper than svc reads (json-array.ts). */
export function tooDeepError(method: string, url: string, max: number): NetworkError {
  return new NetworkError(`${method} ${url} answered JSON nested more than ${max} levels deep, which svc does not read (no record nests so deep; check the instance URL)`, 'SVC_TOO_DEEP');
}

/**
 * The service answered with a redirect (3xx other than 304). svc never
 * follows one: the request carries the bearer token, which must not go to
 * another address on the service's say-so. Exit 1, naming where it pointed.
 */
export class RedirectError extends SvcError {
  constructor(
    readonly status: number,
    /** The Location, absolute and with secret parameters redacted; undefined when the answer had none. */
    readonly location: string | undefined,
    method: string,
    url: string,
  ) {
    const where = location ? `to ${location}` : 'without saying where (no Location header)';
    super(
      `${method} ${url} was redirected (${status}) ${where}; svc does not follow redirects, so the token is not sent elsewhere: ` +
        'if the service moved, point the profile at its new address (svc profile add NAME --url URL)',
      ExitCode.failure,
    );
  }
}

/** No usable answer: connection refused or reset, TLS failure, timeout. Exit 1. */
export class NetworkError extends SvcError {
  constructor(message: string, readonly code?: string) {
    super(message, ExitCode.failure);
  }
}

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** svc's own (node-transport.ts, the deadline) and undici's. */
const TIMEOUT_CODES = new Set([
  'SVC_CONNECT_TIMEOUT',
  'SVC_HEADERS_TIMEOUT',
  'SVC_BODY_TIMEOUT',
  'SVC_BODY_SLOW',
  'SVC_DEADLINE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Turns an undici / Node error into a one-line NetworkError naming the fix. */
export function networkError(err: unknown, method: string, url: string): NetworkError {
  const e = err as { code?: string; cause?: { code?: string; message?: string }; message?: string };
  const code = e.cause?.code ?? e.code;
  const where = `${method} ${url}`;
  if (code && TLS_CODES.has(code)) {
    return new NetworkError(`${where}: the server's certificate is not trusted (${code}); pass --ca-file <CA file> or set NODE_EXTRA_CA_CERTS (for a sandbox started with --https, use the caFile it printed)`, code);
  }
  if (code === 'ECONNREFUSED') return new NetworkError(`${where}: connection refused; is the service (or svc sandbox) running?`, code);
  if (code === 'SVC_BODY_SLOW') return new NetworkError(`${where}: ${shown(e.message ?? 'the answer arrived too slowly')}; raise --timeout or check the network`, code);
  if (code && TIMEOUT_CODES.has(code)) return new NetworkError(`${where}: no answer in time; raise --timeout or check the network`, code);
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') {
    return new NetworkError(`${where}: the other side closed the connection before the answer was complete (${code})`, code);
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new NetworkError(`${where}: host not found; check the instance URL`, code);
  const detail = shown(e.cause?.message ?? e.message ?? String(err));
  return new NetworkError(`${where}: ${detail}${code ? ` (${shown(code, 60)})` : ''}`, code);
}
