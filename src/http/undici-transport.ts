/**
 * The transport through a proxy: undici's EnvHttpProxyAgent (HTTPS_PROXY,
 * HTTP_PROXY, NO_PROXY; CONNECT tunnels). Loaded only when a proxy is
 * configured: undici costs a command ~25 ms to load, and its HTTP parser is
 * WebAssembly compiled at the first request, where node:http is in Node's
 * snapshot (node-transport.ts does every other request).
 */
import { setFlagsFromString } from 'node:v8';
// From undici's index, though it loads all of undici (~70 ms more): the index is what puts `request` and
// `connect` on the dispatchers' prototype, and the proxy agent calls `connect` to open its tunnels (its
// modules imported one by one worked straight, but failed every request through a proxy).
import { EnvHttpProxyAgent } from 'undici';
import type { RawResponse, ResponseBody, Transport, TransportOptions, TransportRequest } from './transport.js';

// undici parses HTTP with llhttp compiled to WebAssembly. V8 compiles it twice:
// at once with its baseline compiler, then again, optimised, on a background
// thread, and a process that has finished waits for that second compile before
// it exits: about 170 ms after every command that made a request, and as much
// CPU taken from the other core. The baseline code parses a 1M-row export's
// responses in about 60 ms, the same as the optimised code (CPU profiles of
// both), so svc keeps to it. It must be set before the first connection.
setFlagsFromString('--liftoff-only');

export interface ProxySettings {
  readonly httpProxy?: string | undefined;
  readonly httpsProxy?: string | undefined;
  readonly noProxy: string;
}

/** A transport that goes through the configured proxies (and straight to hosts in NO_PROXY). */
export function createUndiciTransport(opts: TransportOptions, proxy: ProxySettings): Transport {
  const timeout = opts.timeoutMs;
  const tls = { ...(opts.ca ? { ca: [...opts.ca] } : {}), timeout };
  const dispatcher = new EnvHttpProxyAgent({
    keepAliveTimeout: 10_000,
    headersTimeout: timeout,
    bodyTimeout: timeout,
    // `connect` reaches only the hosts in NO_PROXY (straight connections); through a proxy, undici takes the
    // service's TLS options from `requestTls` (inside the tunnel) and the proxy's from `proxyTls`.
    connect: tls,
    requestTls: tls,
    proxyTls: tls,
    ...proxy,
  });
  return {
    async send(req: TransportRequest): Promise<RawResponse> {
      const { url } = req;
      const res = await dispatcher.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: req.method as 'GET',
        headers: req.headers,
        body: req.body,
        signal: req.signal,
      });
      return { statusCode: res.statusCode, headers: res.headers, body: res.body as unknown as ResponseBody };
    },
    close: () => dispatcher.close(),
  };
}
