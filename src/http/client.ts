/**
 * The HTTP client: the only module that imports undici. It owns the instance's
 * roots, the bearer header, keep-alive, timeouts, retries, TLS trust, proxies,
 * redacted logging and the mapping of error statuses to typed errors.
 */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { setFlagsFromString } from 'node:v8';
import type { Dispatcher } from 'undici';
// The dispatchers and the request call straight from their modules: undici's
// index loads all of undici (fetch, WebSocket, caches, mocks), ~70 ms of every
// command's start. The index would also put `request` on every dispatcher's
// prototype; here it is called with the dispatcher as `this` instead.
import Agent from 'undici/lib/dispatcher/agent.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import dispatchRequest from 'undici/lib/api/api-request.js';
import { SvcError, UsageError } from '../errors.js';
import { untilAborted } from '../util/abortable.js';
import { MAX_TIMER_MS } from '../util/duration.js';
import { networkError, RedirectError, statusError } from './errors.js';
import { readJsonArray } from './json-array.js';
import { redactHeaders, redactUrl } from './redact.js';
import { backoffMs, DEFAULT_RETRY, isRetryableError, RETRY_STATUSES, retryAfterMs, type RetryPolicy } from './retry.js';
import { parseInstanceUrl, type InstanceRoots } from './urls.js';

// undici parses HTTP with llhttp compiled to WebAssembly. V8 compiles it twice:
// at once with its baseline compiler, then again, optimised, on a background
// thread, and a process that has finished waits for that second compile before
// it exits: about 170 ms after every command that made a request, and as much
// CPU taken from the other core. The baseline code parses a 1M-row export's
// responses in about 60 ms, the same as the optimised code (CPU profiles of
// both), so svc keeps to it. It must be set before the first connection.
setFlagsFromString('--liftoff-only');

export type Root = 'api' | 'auth' | 'oauth2';

export interface HttpClientOptions {
  readonly instanceUrl: string;
  /** Bearer token sent on every request unless a request says `auth: false`. */
  readonly token?: string | undefined;
  readonly userAgent: string;
  /** Longest wait for one answer (headers, then each body chunk); default 30 s. */
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
  readonly sleep?: (ms: number) => Promise<void>;
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
  /** The body as a stream (for large exports); read it once. */
  readonly body: Dispatcher.ResponseData['body'];
  text(): Promise<string>;
  /** The body as JSON; an array is read element by element as it arrives (see json-array.ts). */
  json<T = unknown>(): Promise<T>;
  /** A JSON array body, each element turned by `each` as it arrives; anything else is an error. */
  jsonArray<T>(each: (element: unknown) => T): Promise<T[]>;
}

export interface HttpClient {
  readonly roots: InstanceRoots;
  request(spec: RequestSpec): Promise<HttpResponse>;
  close(): Promise<void>;
}

function trustedCa(opts: HttpClientOptions): string[] | undefined {
  const extra = [opts.env.NODE_EXTRA_CA_CERTS, opts.caFile].filter((f): f is string => Boolean(f));
  if (extra.length === 0) return undefined;
  // Passing `ca` replaces Node's store, so keep the public roots beside the extra ones.
  return [
    ...rootCertificates,
    ...extra.map((file) => {
      try {
        return readFileSync(file, 'utf8');
      } catch {
        throw new UsageError(`cannot read CA file '${file}'; check --ca-file or NODE_EXTRA_CA_CERTS`);
      }
    }),
  ];
}

function createDispatcher(opts: HttpClientOptions): Dispatcher {
  const ca = trustedCa(opts);
  const timeout = opts.timeoutMs ?? 30_000;
  const base = { keepAliveTimeout: 10_000, headersTimeout: timeout, bodyTimeout: timeout, connect: { ...(ca ? { ca } : {}), timeout } };
  const e = opts.env;
  const httpsProxy = e.HTTPS_PROXY ?? e.https_proxy;
  const httpProxy = e.HTTP_PROXY ?? e.http_proxy;
  if (!httpsProxy && !httpProxy) return new Agent(base);
  return new EnvHttpProxyAgent({ ...base, httpProxy, httpsProxy, noProxy: e.NO_PROXY ?? e.no_proxy ?? '' });
}

function urlOf(roots: InstanceRoots, spec: RequestSpec): string {
  const u = new URL(`${roots[spec.root]}${spec.path}`);
  for (const [k, v] of Object.entries(spec.query ?? {})) {
    for (const one of typeof v === 'string' ? [v] : v) u.searchParams.append(k, one);
  }
  return u.toString();
}

function bodyOf(spec: RequestSpec): { body?: string; type?: string } {
  if (spec.json !== undefined) return { body: JSON.stringify(spec.json), type: 'application/json' };
  if (spec.form !== undefined) return { body: new URLSearchParams({ ...spec.form }).toString(), type: 'application/x-www-form-urlencoded' };
  return {};
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

/** Creates a client for one instance. Close it when done (keep-alive sockets). */
export function createHttpClient(opts: HttpClientOptions): HttpClient {
  const roots = parseInstanceUrl(opts.instanceUrl);
  const dispatcher = createDispatcher(opts);
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...opts.retry };
  const deadlineMs = opts.deadlineMs ?? 120_000;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const log = opts.log;

  async function attempt(spec: RequestSpec, url: string, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
    const { body, type } = bodyOf(spec);
    const headers: Record<string, string> = { 'user-agent': opts.userAgent, accept: 'application/json, text/csv;q=0.9, */*;q=0.1', ...spec.headers };
    if (type) headers['content-type'] = type;
    if (spec.auth !== false && opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (log && opts.env.SVC_DEBUG?.split(',').includes('http')) for (const line of redactHeaders(headers)) log(`  ${line}`);
    const { origin } = new URL(url);
    return dispatchRequest.call(dispatcher, { origin, path: url.slice(origin.length), method: spec.method, headers, body, signal });
  }

  type Outcome = { res: Dispatcher.ResponseData; err?: undefined } | { res?: undefined; err: unknown };

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
  async function finish(spec: RequestSpec, res: Dispatcher.ResponseData, url: string, shown: string): Promise<HttpResponse> {
    if (res.statusCode >= 300 && res.statusCode < 400 && res.statusCode !== 304) {
      await res.body.dump();
      throw new RedirectError(res.statusCode, locationOf(res.headers.location, url), spec.method, shown);
    }
    if (res.statusCode >= 400 && !(spec.accept ?? []).includes(res.statusCode)) {
      const text = spec.method === 'HEAD' ? '' : await res.body.text();
      throw statusError(res.statusCode, text, spec.method, shown);
    }
    // A body cut off by the caller's signal fails with the signal's reason, not a parse error.
    const reading = async <T,>(read: () => Promise<T>): Promise<T> => {
      try {
        return await read();
      } catch (err) {
        if (spec.signal?.aborted) throw spec.signal.reason;
        throw err;
      }
    };
    return {
      status: res.statusCode,
      headers: res.headers,
      body: res.body,
      text: () => reading(() => res.body.text()),
      json: <T,>() => reading(() => readJsonArray(res.body) as Promise<T>),
      jsonArray: <T,>(each: (element: unknown) => T) =>
        reading(async () => {
          const value = await readJsonArray(res.body, each);
          if (!Array.isArray(value)) throw new SvcError(`${spec.method} ${shown} answered ${typeof value === 'object' ? 'an object' : typeof value} where a JSON array was expected`);
          return value as T[];
        }),
    };
  }

  async function request(spec: RequestSpec): Promise<HttpResponse> {
    spec.signal?.throwIfAborted();
    const url = urlOf(roots, spec);
    const shown = redactUrl(url);
    const retryable = isIdempotent(spec);
    const deadline = Date.now() + deadlineMs;
    const controller = new AbortController();
    // The caller's signal stops the request and its body too; the deadline stops only the tries.
    const signal = spec.signal ? AbortSignal.any([controller.signal, spec.signal]) : controller.signal;
    // The deadline covers the tries until an answer starts; a streaming body has its own idle timeout.
    // A deadline past what a timer holds (a --timeout of weeks, times the tries) is no deadline, not an instant one.
    const timer = setTimeout(() => controller.abort(new Error('deadline')), Math.min(deadlineMs, MAX_TIMER_MS));
    try {
      for (let n = 0; ; n++) {
        const t0 = Date.now();
        log?.(`→ ${spec.method} ${shown}`);
        const outcome: Outcome = await attempt(spec, url, signal).then(
          (res) => ({ res }),
          (err: unknown) => ({ err }),
        );
        if (spec.signal?.aborted) throw spec.signal.reason;
        if (outcome.res) log?.(`← ${outcome.res.statusCode} ${spec.method} ${shown} ${Date.now() - t0} ms`);
        const wait = signal.aborted ? undefined : retryWait(outcome, n, retryable, deadline);
        if (wait !== undefined) {
          await outcome.res?.body.dump();
          const why = outcome.res ? String(outcome.res.statusCode) : ((outcome.err as { code?: string }).code ?? 'connection failed');
          log?.(`  ${why}; retrying in ${wait} ms (attempt ${n + 2} of ${policy.retries + 1})`);
          await untilAborted(sleep(wait), spec.signal);
          continue;
        }
        if (outcome.res) return await finish(spec, outcome.res, url, shown);
        if (signal.aborted) throw networkError({ code: 'UND_ERR_HEADERS_TIMEOUT' }, spec.method, shown);
        throw networkError(outcome.err, spec.method, shown);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  return { roots, request, close: () => dispatcher.close() };
}
