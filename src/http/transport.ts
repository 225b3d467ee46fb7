/**
 * What the HTTP client needs from a transport: send one request, get its
 * status, headers and body as a stream. Two implement it: node:http/node:https
 * (node-transport.ts, the common case: both are in Node's start-up snapshot)
 * and undici (undici-transport.ts, loaded only when a proxy is configured).
 * The client (client.ts) adds everything else: retries, the deadline, error
 * mapping, logging.
 */

/** A response body: read it once, as a stream of chunks, as text, or dump it. */
export interface ResponseBody extends AsyncIterable<Buffer> {
  text(): Promise<string>;
  /** Reads and discards the rest (a large rest closes the connection instead). */
  dump(): Promise<void>;
}

export interface TransportRequest {
  readonly url: URL;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | undefined;
  /** Stops the request and the reading of its body; the error is then the signal's reason. */
  readonly signal: AbortSignal;
}

export interface RawResponse {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: ResponseBody;
}

export interface Transport {
  send(req: TransportRequest): Promise<RawResponse>;
  /** Closes the keep-alive connections. */
  close(): Promise<void>;
}

export interface TransportOptions {
  /** Longest wait to connect, for the answer's headers, and between body chunks (ms). */
  readonly timeoutMs: number;
  /** Trusted CAs replacing Node's default store (PEM texts), when extra ones were asked for. */
  readonly ca?: readonly string[] | undefined;
}

/** The codes of svc's own timeouts (the node transport's; undici has its UND_ERR_* ones). */
export const TIMEOUT_CODES = {
  connect: 'SVC_CONNECT_TIMEOUT',
  headers: 'SVC_HEADERS_TIMEOUT',
  body: 'SVC_BODY_TIMEOUT',
  /** A body that keeps arriving, too slowly (the client's pace rule, body.ts). */
  slow: 'SVC_BODY_SLOW',
  /** The client's deadline for a request and its retries. */
  deadline: 'SVC_DEADLINE',
} as const;

/** A timeout of the node transport, coded like a system error. */
export class TransportTimeoutError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'TransportTimeoutError';
  }
}

/** Keep at most this much of a body that is dumped; past it the connection is closed instead. */
export const DUMP_LIMIT = 128 * 1024;
