/**
 * A browser sign-in (`svc login --web`): the OAuth 2.0 authorization-code
 * flow with PKCE (S256) and a `state` check, redirected to a one-shot server
 * on 127.0.0.1 with a port the system picks (RFC 8252, "loopback redirect").
 *
 * The authorize URL is opened in a browser (the caller's `open`) and always
 * shown (`announce`). The answer comes back as the browser's redirect to the
 * loopback server or, for a browser on another machine (`--no-browser` over
 * SSH), as the redirect URL pasted on standard input (`pasted`): whichever
 * comes first. An answer whose `state` is not this sign-in's is refused and
 * waiting goes on (it is someone else's, or an attack). The wait is limited
 * (`waitMs`), and `signal` (Ctrl-C) ends it; either way the server closes and
 * nothing is kept.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { AuthError } from '../../errors.js';
import type { HttpClient } from '../../http/client.js';
import { oauthServer } from './endpoints.js';
import { oauthError, refusal } from './errors.js';
import { grantFrom, type OAuthGrant } from './grant.js';
import { oauthLibs, type OAuthLibs } from './libs.js';

export interface WebLoginInput {
  readonly http: HttpClient;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Opens the URL in a browser; resolves false when no browser could be started. */
  open(url: string): Promise<boolean>;
  /** Shows the URL and what to do (stderr). */
  announce(url: string, opened: boolean): void;
  /** Lines typed or pasted on standard input (--no-browser), when they are to be read. */
  readonly pasted?: AsyncIterable<string> | undefined;
  /** Tells the person about a refused answer (stderr), waiting goes on. */
  warn(message: string): void;
  readonly waitMs: number;
  readonly signal?: AbortSignal | undefined;
  now(): number;
  /** The command that starts over, for messages. */
  readonly signIn: string;
}

const PAGE_STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}h1{font-size:1.4rem}';

function page(title: string, text: string): string {
  const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title><style>${PAGE_STYLE}</style></head><body><h1>${esc(title)}</h1><p>${esc(text)}</p></body></html>`;
}

/** What came back from the browser: the redirect's query, and how to answer the browser (when it came that way). */
interface Answer {
  readonly params: URLSearchParams;
  readonly reply?: (status: number, title: string, text: string) => void;
}

/**
 * The query of a pasted redirect URL, or undefined when the line is not one
 * for this sign-in: an absolute URL must be the redirect URI itself (scheme,
 * host, port and path); a relative one (`/callback?…`, `?code=…`) is read
 * against it.
 */
function pastedParams(line: string, redirectUri: string): URLSearchParams | undefined {
  const text = line.trim();
  if (!text) return undefined;
  let url: URL;
  try {
    url = new URL(text, redirectUri);
  } catch {
    return undefined;
  }
  const expected = new URL(redirectUri);
  if (url.origin !== expected.origin || url.pathname !== expected.pathname) return undefined;
  return url.searchParams;
}

/** Refused answers that are told on stderr one by one; after that, one line says the rest are refused without a word. */
const TOLD_REFUSALS = 3;

/** Runs the flow; resolves to the grant the code was exchanged for. */
export async function webLogin(input: WebLoginInput): Promise<OAuthGrant> {
  const libs = await oauthLibs();
  const server = oauthServer(libs, input.http, input.clientId);
  const verifier = libs.oauth.generateRandomCodeVerifier();
  const challenge = await libs.oauth.calculatePKCECodeChallenge(verifier);
  const state = libs.oauth.generateRandomState();

  const answers: Answer[] = [];
  let wake: (() => void) | undefined;
  const push = (a: Answer): void => {
    answers.push(a);
    wake?.();
  };
  const loopback = createServer((req: IncomingMessage, res: ServerResponse) => {
    const reply = (status: number, title: string, text: string): void => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', connection: 'close' });
      res.end(page(title, text));
    };
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== server.redirectPath) {
      reply(404, 'Not found', 'This is svc waiting for a sign-in; nothing else is here.');
      return;
    }
    push({ params: url.searchParams, reply });
  });
  const sockets = new Set<Socket>();
  loopback.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    loopback.once('error', reject);
    loopback.listen(0, '127.0.0.1', () => resolve());
  });
  const redirectUri = `http://127.0.0.1:${(loopback.address() as AddressInfo).port}${server.redirectPath}`;
  let reading = true;
  let refused = 0;
  try {
    const authorize = new URL(server.as.authorization_endpoint!);
    for (const [k, v] of Object.entries({
      client_id: input.clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    })) {
      authorize.searchParams.set(k, v);
    }
    const opened = await input.open(authorize.href);
    input.announce(authorize.href, opened);

    if (input.pasted) {
      void (async () => {
        for await (const line of input.pasted!) {
          if (!reading) return;
          const params = pastedParams(line, redirectUri);
          if (params) push({ params });
          else if (line.trim()) input.warn(`that is not the redirect URL of this sign-in (it starts ${redirectUri}); paste the whole address the browser ended on`);
        }
      })().catch(() => undefined);
    }

    const deadline = Date.now() + input.waitMs;
    for (;;) {
      const answer = answers.shift() ?? (await nextAnswer());
      let params: URLSearchParams;
      try {
        params = libs.oauth.validateAuthResponse(server.as, server.client, answer.params, state);
      } catch (err) {
        const why = refusal(libs, err);
        if (why !== undefined) {
          // The person (or the service) said no: that ends this sign-in.
          answer.reply?.(200, 'Sign-in cancelled', 'svc was not signed in. You can close this tab.');
          const denied = err instanceof libs.oauth.AuthorizationResponseError && err.error === 'access_denied';
          throw new AuthError(denied ? `the sign-in was denied in the browser; run '${input.signIn}' to try again` : `the sign-in failed (${why}); run '${input.signIn}' to try again`);
        }
        // Not this sign-in's state, or no code: not an answer to wait for.
        answer.reply?.(400, 'Not this sign-in', 'This address does not belong to the sign-in svc is waiting for. Start again from the terminal.');
        // Anything on this machine can call the loopback port: it must not be able to flood the terminal.
        refused++;
        if (refused <= TOLD_REFUSALS) input.warn('an answer that does not belong to this sign-in was refused (its state does not match); still waiting');
        if (refused === TOLD_REFUSALS) input.warn('further answers that do not belong to this sign-in are refused without a word');
        continue;
      }
      // This sign-in's state but no code: the service (or whatever rewrote the redirect) sent nothing to exchange.
      if (!params.get('code')) {
        answer.reply?.(200, 'Sign-in failed', 'The answer had no authorization code, so svc was not signed in. The terminal says what to do.');
        throw new AuthError(`the browser's answer to this sign-in had no authorization code, so nothing was exchanged; run '${input.signIn}' to try again`);
      }
      try {
        const grant = await exchange(libs, input, server, params, redirectUri, verifier);
        answer.reply?.(200, 'Signed in', 'svc is signed in. You can close this tab and go back to the terminal.');
        return grant;
      } catch (err) {
        answer.reply?.(200, 'Sign-in failed', 'svc could not finish signing in; the terminal says why.');
        throw err;
      }
    }

    function nextAnswer(): Promise<Answer> {
      return new Promise<Answer>((resolve, reject) => {
        const left = deadline - Date.now();
        const timer = setTimeout(() => {
          cleanup();
          const waited = input.waitMs < 1000 ? `${input.waitMs} ms` : `${Math.round(input.waitMs / 1000)} s`;
          reject(new AuthError(`no answer from the browser within ${waited}; run '${input.signIn}' again (and --wait DURATION for longer)`));
        }, Math.max(0, left));
        const onAbort = (): void => {
          cleanup();
          reject(input.signal?.reason);
        };
        const cleanup = (): void => {
          clearTimeout(timer);
          input.signal?.removeEventListener('abort', onAbort);
          wake = undefined;
        };
        if (input.signal?.aborted) return onAbort();
        input.signal?.addEventListener('abort', onAbort, { once: true });
        wake = () => {
          const a = answers.shift();
          if (!a) return;
          cleanup();
          resolve(a);
        };
      });
    }
  } finally {
    reading = false;
    await new Promise<void>((resolve) => {
      loopback.close(() => resolve());
      // A browser's keep-alive connection must not hold the server (or svc) open.
      for (const s of sockets) s.destroy();
    });
  }
}

async function exchange(
  libs: OAuthLibs,
  input: WebLoginInput,
  server: ReturnType<typeof oauthServer>,
  params: URLSearchParams,
  redirectUri: string,
  verifier: string,
): Promise<OAuthGrant> {
  try {
    // Ctrl-C stops the exchange too: nothing is kept, whatever the service did with the code.
    const options = input.signal ? { ...server.options, signal: input.signal } : server.options;
    const res = await libs.oauth.authorizationCodeGrantRequest(server.as, server.client, libs.oauth.ClientSecretBasic(input.clientSecret), params, redirectUri, verifier, options);
    const answer = await libs.oauth.processAuthorizationCodeResponse(server.as, server.client, res);
    return grantFrom(answer, input.clientId, input.now());
  } catch (err) {
    if (input.signal?.aborted) throw input.signal.reason;
    throw oauthError(libs, err, 'exchanging the code for tokens', `check the client id and secret, then run '${input.signIn}' again`);
  }
}
