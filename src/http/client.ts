/**
 * The HTTP client: owns the instance's roots, the bearer header, keep-alive,
 * timeouts, retries, TLS trust, proxies, redacted logging and the mapping of
 * error statuses to typed errors. Requests go out on node:http/node:https
 * (node-transport.ts); only with a proxy configured is undici loaded
 * (undici-transport.ts), the one module that imports it. Either loads at the
 * first request, so creating a client costs nothing.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { SvcError, UsageError } from '../errors.js';
import { untilAborted } from '../util/abortable.js';
import { MAX_TIMER_MS } from '../util/duration.js';
// As shownText: `shown` below names a request's redacted URL.
import { shown as shownText } from '../util/shown.js';
import { guardBody, type GuardedBody } from './body.js';
import { networkError, notJsonError, RedirectError, statusError, tooDeepError, unaskedNotModified } from './errors.js';
import { JsonDepthError, MAX_ANSWER_DEPTH, readJsonArray } from './json-array.js';
import { redactHeaders, redactUrl } from './redact.js';
import { startupExtraCa } from './startup-trust.js';
import { backoffMs, DEFAULT_RETRY, isRetryableError, RETRY_STATUSES, retryAfterMs, type RetryPolicy } from './retry.js';
import { TIMEOUT_CODES, TransportTimeoutError, type RawResponse, type ResponseBody, type Transport, type TransportOptions } from './transport.js';
import { parseInstanceUrl, type InstanceRoots } from './urls.js';

export type { ResponseBody } from './transport.js';

export type Root = 'api' | 'auth' | 'oauth2';

export interface HttpClientOptions {
  readonly instanceUrl: string;
  /** Bearer token sent on every request unless a request says `auth: false`. */
  readonly token?: string | undefined;
  /** A bearer token that changes (an OAuth sign-in): asked before each request, in place of `token`. */
  readonly credential?: BearerCredential | undefined;
  readonly userAgent: string;
  /** Longest wait for one answer (headers, then each body chunk; a body must also keep a pace, see body.ts); default 30 s. */
  readonly timeoutMs?: number;
  /** Longest time for a request with its retries, until its answer starts; default 2 min. */
  readonly deadlineMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  /** Extra trusted CA certificates (PEM file). */
  readonly caFile?: string | undefined;
  /** HTTPS_PROXY, HTTP_PROXY, NO_PROXY, NODE_EXTRA_CA_CERTS are read from here. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Verbose log sink (stderr); silent when absent. */
  readonly log?: ((line: string) => void) | undefined;
  /** Told of a wait of NOTICE_MS or more before a request is sent again (a person on a terminal); silent when absent. */
  readonly notice?: ((line: string) => void) | undefined;
  readonly sleep?: (ms: number) => Promise<void>;
  /** What a 401's message advises (default "run svc login"): for a token from SVC_TOKEN or a file, a valid token there. */
  readonly refusedTokenFix?: string | undefined;
}

/**
 * A bearer token that can be renewed: `current` gives the token to send (renewing one about to expire);
 * after a 401, `renew` is asked once with the token the service refused, and gives the token to send
 * the request again with, or undefined to let the 401 stand. A 401 means the request was not carried
 * out, so it is sent again whatever its method.
 */
/** A wait before sending again that a person is told of (shorter ones pass unnoticed). */
const NOTICE_MS = 2000;

export interface BearerCredential {
  current(): Promise<string>;
  renew(rejected: string): Promise<string | undefined>;
}

export interface RequestSpec {
  readonly method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly root: Root;
  /** Path under the root, e.g. `/accounts/1` or `/login`. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | readonly string[]>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly json?: unknown;
  readonly form?: Readonly<Record<string, string>>;
  /** A body sent as given, with its content type when it has one, in place of `json` and `form` (svc api). */
  readonly raw?: { readonly text: string; readonly type?: string };
  /** Safe to send twice. Default: GET/HEAD, and DELETE with If-Match; query POSTs pass true. */
  readonly idempotent?: boolean;
  /** Send the bearer token (default true). */
  readonly auth?: boolean;
  /** Statuses >= 400 to return instead of throwing (e.g. 404 for exists). */
  readonly accept?: readonly number[];
  /**
   * Stops the request, its retries and the reading of its body (Ctrl-C); the
   * request then rejects with the signal's reason, at once, whatever the
   * server does.
   */
  readonly signal?: AbortSignal;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /**
   * The body as a stream (for large exports); read it once. A failure while
   * reading it, or a body arriving too slowly (body.ts), is a NetworkError
   * (or the caller's signal's reason).
   */
  readonly body: ResponseBody;
  text(): Promise<string>;
  /**
   * The body as JSON; an array is read element by element as it arrives (see json-array.ts).
   * A body that is not JSON, or nests deeper than svc reads, is a NetworkError naming the request.
   */
  json<T = unknown>(): Promise<T>;
  /** A JSON array body, each element turned by `each` as it arrives; anything else is an error. */
  jsonArray<T>(each: (element: unknown) => T): Promise<T[]>;
}

export interface HttpClient {
  readonly roots: InstanceRoots;
  request(spec: RequestSpec): Promise<HttpResponse>;
  close(): Promise<void>;
}

/**
 * The CA certificates to trust instead of Node's default store, when extra
 * ones are asked for (--ca-file, or a NODE_EXTRA_CA_CERTS other than the one
 * Node started with); undefined keeps Node's store, which already holds the
 * public roots and the NODE_EXTRA_CA_CERTS it started with.
 */
export function trustedCa(opts: Pick<HttpClientOptions, 'caFile' | 'env'>, started: string | undefined = startupExtraCa()): string[] | undefined {
  const envExtra = opts.env.NODE_EXTRA_CA_CERTS;
  if (!opts.caFile && (!envExtra || envExtra === started)) return undefined;
  const files = [envExtra, opts.caFile].filter((f): f is string => Boolean(f));
  const pems = files.map((file) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      throw new UsageError(`cannot read CA file '${shownText(file)}'; check --ca-file or NODE_EXTRA_CA_CERTS`);
    }
  });
  // Passing `ca` replaces Node's store, so keep the public roots beside the extra ones.
  // node:tls is loaded here only (synchronously: the client is created synchronously).
  const { rootCertificates } = createRequire(import.meta.url)('node:tls') as typeof import('node:tls');
  return [...rootCertificates, ...pems];
}

/** The proxies from the environment, or undefined when none is configured. */
function proxyOf(env: HttpClientOptions['env']): { httpProxy?: string; httpsProxy?: string; noProxy: string } | undefined {
  const httpsProxy = env.HTTPS_PROXY ?? env.https_proxy;
  const httpProxy = env.HTTP_PROXY ?? env.http_proxy;
  if (!httpsProxy && !httpProxy) return undefined;
  return { ...(httpProxy ? { httpProxy } : {}), ...(httpsProxy ? { httpsProxy } : {}), noProxy: env.NO_PROXY ?? env.no_proxy ?? '' };
}

/** node:http(s) for the instance's origin; undici through a proxy. */
async function openTransport(origin: URL, options: TransportOptions, env: HttpClientOptions['env']): Promise<Transport> {
  const proxy = proxyOf(env);
  if (proxy) return (await import('./undici-transport.js')).createUndiciTransport(options, proxy);
  return (await import('./node-transport.js')).createNodeTransport(origin, options);
}

/** The URL a request goes to: its root, its path, its query. */
export function urlOf(roots: InstanceRoots, spec: RequestSpec): URL {
  const u = new URL(`${roots[spec.root]}${spec.path}`);
  for (const [k, v] of Object.entries(spec.query ?? {})) {
    for (const one of typeof v === 'string' ? [v] : v) u.searchParams.append(k, one);
  }
  return u;
}

function bodyOf(spec: RequestSpec): { body?: string; type?: string } {
  if (spec.raw !== undefined) return spec.raw.type ? { body: spec.raw.text, type: spec.raw.type } : { body: spec.raw.text };
  if (spec.json !== undefined) return { body: JSON.stringify(spec.json), type: 'application/json' };
  if (spec.form !== undefined) return { body: new URLSearchParams({ ...spec.form }).toString(), type: 'application/x-www-form-urlencoded' };
  return {};
}

/** The headers and body a request goes out with; `token` becomes the bearer (svc api --dry-run shows them, redacted). */
export function outgoing(spec: RequestSpec, userAgent: string, token: string | undefined, encoded = bodyOf(spec)): { headers: Record<string, string>; body?: string } {
  const { body, type } = encoded;
  const headers: Record<string, string> = { 'user-agent': userAgent, accept: 'application/json, text/csv;q=0.9, */*;q=0.1', ...spec.headers };
  if (type) headers['content-type'] = type;
  if (token) headers.authorization = `Bearer ${token}`;
  return body === undefined ? { headers } : { headers, body };
}

/**
 * A redirect's Location for the message: where it points (scheme, host,
 * path), never what it carries (user info, query, fragment may hold secrets).
 */
function locationOf(header: string | string[] | undefined, base: string): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  try {
    const u = new URL(value, base);
    const rest = u.search || u.hash ? ' (its query and fragment not shown)' : '';
    return `${u.protocol}//${u.host}${u.pathname.slice(0, 300)}${rest}`;
  } catch {
    return 'an address that is not a valid URL';
  }
}

function isIdempotent(spec: RequestSpec): boolean {
  if (spec.idempotent !== undefined) return spec.idempotent;
  if (spec.method === 'GET' || spec.method === 'HEAD') return true;
  return spec.method === 'DELETE' && Object.keys(spec.headers ?? {}).some((h) => h.toLowerCase() === 'if-match');
}

/** How much of an error answer's text is read (the message shows 300 characters of it). */
const ERROR_TEXT_LIMIT = 64 * 1024;

/** Whether a request asked whether the record changed, so that 304 is an answer to it. */
function asksIfModified(spec: RequestSpec): boolean {
  return Object.keys(spec.headers ?? {}).some((h) => /^if-(none-match|modified-since)$/i.test(h));
}

/** The error for a body the JSON reader refused (`err`), or `err` itself when it is not the reader's. */
function unreadable(err: unknown, spec: RequestSpec, shown: string, res: RawResponse, body: GuardedBody): unknown {
  if (err instanceof JsonDepthError) return tooDeepError(spec.method, shown, MAX_ANSWER_DEPTH);
  if (!(err instanceof SyntaxError)) return err;
  const first = (h: string | string[] | undefined): string | undefined => (Array.isArray(h) ? h[0] : h);
  const shape = { contentType: first(res.headers['content-type']), contentEncoding: first(res.headers['content-encoding']), bytes: body.received };
  return notJsonError(spec.method, shown, shape, err.message);
}

/** Creates a client for one instance. Close it when done (keep-alive sockets). */
export function createHttpClient(opts: HttpClientOptions): HttpClient {
  const roots = parseInstanceUrl(opts.instanceUrl);
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const transportOptions: TransportOptions = { timeoutMs, ca: trustedCa(opts) };
  let transport: Promise<Transport> | undefined;
  const transportOf = (): Promise<Transport> => (transport ??= openTransport(new URL(roots.instance), transportOptions, opts.env));
  // Its modules start loading now, beside whatever the caller does before its first request;
  // a failure to load surfaces at that request.
  transportOf().catch(() => undefined);
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...opts.retry };
  const deadlineMs = opts.deadlineMs ?? 120_000;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const log = opts.log;

  async function attempt(spec: RequestSpec, url: URL, signal: AbortSignal, token: string | undefined, encoded: ReturnType<typeof bodyOf>): Promise<RawResponse> {
    const { body, headers } = outgoing(spec, opts.userAgent, token, encoded);
    if (log && opts.env.SVC_DEBUG?.split(',').includes('http')) for (const line of redactHeaders(headers)) log(`  ${line}`);
    return (await transportOf()).send({ url, method: spec.method, headers, body, signal });
  }

  type Outcome = { res: RawResponse; err?: undefined } | { res?: undefined; err: unknown };

  /** How long to wait before another try, or undefined when this outcome is final. */
  function retryWait(o: Outcome, n: number, retryable: boolean, deadline: number): number | undefined {
    const left = deadline - Date.now();
    if (!retryable || n >= policy.retries || left <= 0) return undefined;
    if (!o.res) return isRetryableError(o.err) ? Math.min(backoffMs(n, policy), left) : undefined;
    if (!RETRY_STATUSES.has(o.res.statusCode)) return undefined;
    const wait = retryAfterMs(o.res.headers['retry-after'], Date.now()) ?? backoffMs(n, policy);
    return wait < left ? wait : undefined;
  }

  /** The answer as a response, or the typed error its status stands for. */
  async function finish(spec: RequestSpec, res: RawResponse, body: GuardedBody, url: string, shown: string): Promise<HttpResponse> {
    if (res.statusCode === 304 && !asksIfModified(spec)) {
      await body.dump();
      throw unaskedNotModified(spec.method, shown);
    }
    if (res.statusCode >= 300 && res.statusCode < 400 && res.statusCode !== 304) {
      await body.dump();
      throw new RedirectError(res.statusCode, locationOf(res.headers.location, url), spec.method, shown);
    }
    if (res.statusCode >= 400 && !(spec.accept ?? []).includes(res.statusCode)) {
      // The start of the text is enough for the message; an endless or huge one is not read to its end.
      const text = spec.method === 'HEAD' ? '' : await body.head(ERROR_TEXT_LIMIT);
      throw statusError(res.statusCode, text, spec.method, shown, retryAfterMs(res.headers['retry-after'], Date.now()), opts.refusedTokenFix);
    }
    // A body cut off by the caller's signal fails with the signal's reason, not a parse error;
    // a body that is not JSON fails naming the request and what came instead.
    const reading = async <T,>(read: () => Promise<T>): Promise<T> => {
      try {
        return await read();
      } catch (err) {
        if (spec.signal?.aborted) throw spec.signal.reason;
        throw unreadable(err, spec, shown, res, body);
      }
    };
    return {
      status: res.statusCode,
      headers: res.headers,
      body,
      text: () => reading(() => body.text()),
      json: <T,>() => reading(() => readJsonArray(body) as Promise<T>),
      jsonArray: <T,>(each: (element: unknown) => T) =>
        reading(async () => {
          const value = await readJsonArray(body, each);
          if (!Array.isArray(value)) throw new SvcError(`${spec.method} ${shown} answered ${typeof value === 'object' ? 'an object' : typeof value} where a JSON array was expected`);
          return value as T[];
        }),
    };
  }

  async function request(spec: RequestSpec): Promise<HttpResponse> {
    spec.signal?.throwIfAborted();
    const url = urlOf(roots, spec);
    const href = url.toString();
    const shown = redactUrl(href);
    const retryable = isIdempotent(spec);
    const controller = new AbortController();
    // The caller's signal stops the request and its body too; the deadline stops only the tries.
    const signal = spec.signal ? AbortSignal.any([controller.signal, spec.signal]) : controller.signal;
    const credential = spec.auth === false ? undefined : opts.credential;
    let token: string | undefined;
    let renewed = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let deadline = Number.POSITIVE_INFINITY;
    try {
      // Encoded once, before any try: a body that cannot be (too deep for JSON.stringify) is svc's own error, not the network's.
      const encoded = bodyOf(spec);
      // Before the deadline starts: waiting for another svc's renewal of the sign-in (its own requests have their
      // deadlines, and the wait its own bound) is not this request's time, or a short --timeout would end it unsent.
      token = spec.auth === false ? undefined : credential ? await untilAborted(credential.current(), spec.signal) : opts.token;
      // The deadline covers the tries until an answer starts (and the reading of an error answer's text); a body has its own idle timeout and pace (body.ts).
      // A deadline past what a timer holds (a --timeout of weeks, times the tries) is no deadline, not an instant one.
      deadline = Date.now() + deadlineMs;
      timer = setTimeout(
        () => controller.abort(new TransportTimeoutError(TIMEOUT_CODES.deadline, `no answer within ${deadlineMs} ms`)),
        Math.min(deadlineMs, MAX_TIMER_MS),
      );
      for (let n = 0; ; n++) {
        const t0 = Date.now();
        log?.(`→ ${spec.method} ${shown}`);
        // Each try can be cut alone (its body too slow, body.ts) without stopping the tries after it.
        const cut = new AbortController();
        const stopped = AbortSignal.any([signal, cut.signal]);
        const guarded = (res: RawResponse): GuardedBody => guardBody(res.body, { method: spec.method, shown, timeoutMs, signal: spec.signal, cut, stopped });
        const outcome: Outcome = await attempt(spec, url, stopped, token, encoded).then(
          (res) => ({ res }),
          (err: unknown) => ({ err }),
        );
        if (spec.signal?.aborted) throw spec.signal.reason;
        if (outcome.res) log?.(`← ${outcome.res.statusCode} ${spec.method} ${shown} ${Date.now() - t0} ms`);
        if (outcome.res?.statusCode === 401 && credential && token && !renewed) {
          // Once per request: a token refused now (revoked, or renewed by another process) is renewed and the request sent again.
          renewed = true;
          const next = await untilAborted(credential.renew(token), spec.signal);
          if (next !== undefined) {
            await guarded(outcome.res).dump();
            log?.('  401; sending again with a renewed token');
            token = next;
            n--;
            continue;
          }
        }
        const wait = signal.aborted ? undefined : retryWait(outcome, n, retryable, deadline);
        if (wait !== undefined) {
          if (outcome.res) await guarded(outcome.res).dump();
          const why = outcome.res ? String(outcome.res.statusCode) : ((outcome.err as { code?: string }).code ?? 'connection failed');
          log?.(`  ${why}; retrying in ${wait} ms (attempt ${n + 2} of ${policy.retries + 1})`);
          if (wait >= NOTICE_MS && !log) opts.notice?.(`${spec.method} ${shown}: ${why}; trying again in ${Math.round(wait / 1000)} s (attempt ${n + 2} of ${policy.retries + 1})`);
          await untilAborted(sleep(wait), spec.signal);
          continue;
        }
        if (outcome.res) return await finish(spec, outcome.res, guarded(outcome.res), href, shown);
        if (signal.aborted) throw networkError({ code: TIMEOUT_CODES.deadline }, spec.method, shown);
        throw networkError(outcome.err, spec.method, shown);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    roots,
    request,
    close: async () => {
      const t = transport;
      transport = undefined;
      await (await t?.catch(() => undefined))?.close();
    },
  };
}
