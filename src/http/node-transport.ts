/**
 * The transport on node:http / node:https, for every request that goes
 * straight to the service (no proxy). Both modules are in Node's start-up
 * snapshot, so this costs a command ~1 ms to load where undici cost ~25 ms
 * (and a WebAssembly compile of its HTTP parser at the first request); see
 * the README's Dependencies section.
 *
 * Keep-alive connections (a pool per client, idle ones closed after 10 s or
 * before the server's Keep-Alive hint runs out; idle sockets never keep the
 * process alive), and three timeouts like undici's: connecting (TCP and TLS),
 * waiting for the answer's headers, and the body going quiet (not while the
 * reader holds it back: a slow pipe downstream is not a dead server).
 */
import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import type { Socket } from 'node:net';
import { shown } from '../util/shown.js';
import { DUMP_LIMIT, TIMEOUT_CODES, TransportTimeoutError, type RawResponse, type ResponseBody, type Transport, type TransportOptions, type TransportRequest } from './transport.js';

/** How long an idle keep-alive connection stays open (as undici's keepAliveTimeout was). */
const KEEP_ALIVE_MS = 10_000;

type Phase = 'connect' | 'headers' | 'body';

const PHASE_CODE: Record<Phase, string> = { connect: TIMEOUT_CODES.connect, headers: TIMEOUT_CODES.headers, body: TIMEOUT_CODES.body };
const PHASE_TEXT: Record<Phase, string> = {
  connect: 'could not connect in time',
  headers: 'no answer in time',
  body: 'the answer stopped arriving',
};

/** A body over an IncomingMessage. */
function bodyOf(res: IncomingMessage): ResponseBody {
  return {
    [Symbol.asyncIterator]: () => res[Symbol.asyncIterator]() as AsyncIterator<Buffer>,
    async text() {
      const parts: Buffer[] = [];
      for await (const chunk of res) parts.push(chunk as Buffer);
      return Buffer.concat(parts).toString('utf8');
    },
    async dump() {
      if (res.complete && res.readableEnded) return;
      let n = 0;
      try {
        // Leaving the loop early destroys the response and its connection.
        for await (const chunk of res) if ((n += (chunk as Buffer).length) > DUMP_LIMIT) break;
      } catch {
        // Nothing of it was wanted.
      }
    },
  };
}

/** A transport for one origin (http: or https:). */
export async function createNodeTransport(origin: URL, opts: TransportOptions): Promise<Transport> {
  const secure = origin.protocol === 'https:';
  const mod = secure ? await import('node:https') : await import('node:http');
  const agent: Agent = new mod.Agent({
    keepAlive: true,
    timeout: KEEP_ALIVE_MS,
    ...(secure && opts.ca ? { ca: [...opts.ca] } : {}),
  });
  const timeoutMs = opts.timeoutMs;

  function send(req: TransportRequest): Promise<RawResponse> {
    const { signal } = req;
    return new Promise<RawResponse>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      let phase: Phase = 'connect';
      let socket: Socket | undefined;
      let res: IncomingMessage | undefined;
      const options: RequestOptions = { method: req.method, headers: req.headers, agent };
      const r: ClientRequest = mod.request(req.url, options);

      const fail = (err: unknown): void => {
        if (res) res.destroy(err as Error);
        else r.destroy(err as Error);
      };
      const timer = setTimeout(() => {
        if (phase === 'body' && res) {
          // Everything arrived, or the reader holds the body back: not the server's silence.
          if (res.complete) return;
          if (socket?.isPaused()) {
            timer.refresh();
            return;
          }
        }
        fail(new TransportTimeoutError(PHASE_CODE[phase], `${PHASE_TEXT[phase]} (${timeoutMs} ms)`));
      }, timeoutMs);
      // An unread body must not keep the process alive (its connection closes with the client).
      timer.unref();
      const onData = (): void => void timer.refresh();
      const onAbort = (): void => fail(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      const cleanup = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        socket?.off('data', onData);
      };
      const connected = (): void => {
        if (phase !== 'connect') return;
        phase = 'headers';
        timer.refresh();
      };

      r.on('socket', (s: Socket) => {
        socket = s;
        if (r.reusedSocket || (!s.connecting && !secure)) connected();
        else s.once(secure ? 'secureConnect' : 'connect', connected);
      });
      r.on('response', (m: IncomingMessage) => {
        // A 101 without Upgrade comes as an answer: it is none (the connection is no longer HTTP's).
        if (m.statusCode === 101) return unasked(m);
        res = m;
        phase = 'body';
        timer.refresh();
        socket?.on('data', onData);
        m.once('end', cleanup);
        m.once('close', cleanup);
        m.on('error', cleanup);
        resolve({ statusCode: m.statusCode ?? 0, headers: m.headers, body: bodyOf(m) });
      });
      // After the answer has started, failures reach its body; this only rejects a request still waiting.
      r.on('error', (err) => {
        if (res) return;
        cleanup();
        reject(err);
      });
      // 101 Switching Protocols, never asked for: node:http hands over the socket through 'upgrade' when it
      // is listened for, and otherwise drops it with neither 'response' nor 'error'. Either way no HTTP answer
      // is coming: the request fails now, rather than waiting on events that never come.
      function unasked(m: IncomingMessage, s: Socket | undefined = m.socket ?? undefined): void {
        s?.destroy();
        r.destroy();
        cleanup();
        const to = m.headers.upgrade ? ` (to ${shown(m.headers.upgrade, 40)})` : '';
        reject(new Error(`the server answered ${m.statusCode ?? 101} Switching Protocols${to}, which svc did not ask for; no HTTP answer came (check the instance URL)`));
      }
      r.on('upgrade', (m: IncomingMessage, s: Socket) => unasked(m, s));
      // Closed with no answer and no error (whatever the cause): a reset, so the request fails rather than hangs.
      r.on('close', () => {
        if (res) return;
        cleanup();
        reject(Object.assign(new Error('the connection closed before an answer came'), { code: 'ECONNRESET' }));
      });
      r.end(req.body);
    });
  }

  return {
    send,
    close: async () => agent.destroy(),
  };
}
