/**
 * The service's OAuth 2.0 interface as oauth4webapi sees it: the
 * authorization server's endpoints under `<instance>/oauth2/v1` (the service
 * publishes no discovery document), the client, and a fetch that goes out
 * through svc's own HTTP client, so a sign-in and a refresh get the same TLS
 * trust (--ca-file), proxies, timeouts and redacted --verbose log as any
 * other request. Token requests are never retried: a refresh token is
 * single-use, and a second try of one whose answer was lost would burn it.
 * An answer is read up to MAX_ANSWER_BYTES: a token, revocation or error
 * answer is a few hundred bytes, and a server that sends megabytes is not
 * given svc's memory. A 5xx is the HTTP client's status error (the service
 * failed; it did not refuse), as for any other request.
 */
import { SvcError } from '../../errors.js';
import type { HttpClient, HttpResponse } from '../../http/client.js';
import type { OAuthLibs } from './libs.js';

/** Longest answer of the OAuth interface svc reads. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** The answer's text; SvcError (and the connection dropped) when it runs over MAX_ANSWER_BYTES. */
async function boundedText(res: HttpResponse, what: string): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.length;
    // Leaving the loop destroys the response, so the rest is never read.
    if (size > MAX_ANSWER_BYTES) throw new SvcError(`the service's answer to ${what} is over ${MAX_ANSWER_BYTES / 1024} KiB; no OAuth 2.0 answer is that long`);
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** Whether a token endpoint's answer is an RFC 6749 error answer: a JSON object with a string `error`, not empty. */
function isRefusal(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.hasOwn(v, 'error')) return false;
    const error = (v as { error: unknown }).error;
    return typeof error === 'string' && error !== '';
  } catch {
    return false;
  }
}

export interface OAuthServer {
  readonly as: import('oauth4webapi').AuthorizationServer;
  readonly client: import('oauth4webapi').Client;
  /** Options every oauth4webapi request takes: our fetch, and plain HTTP allowed on loopback (the sandbox). */
  readonly options: { [key: symbol]: unknown };
  readonly redirectPath: string;
}

/** The path of the loopback redirect URI (the sandbox's svc-cli application registers it). */
export const REDIRECT_PATH = '/callback';

/** The endpoints of an instance, its client, and the fetch that uses `http`. */
export function oauthServer(libs: OAuthLibs, http: HttpClient, clientId: string): OAuthServer {
  const base = http.roots.oauth2;
  const as = {
    issuer: base,
    authorization_endpoint: `${base}/authorize`,
    token_endpoint: `${base}/token`,
    revocation_endpoint: `${base}/revoke`,
    introspection_endpoint: `${base}/introspect`,
    userinfo_endpoint: `${base}/userinfo`,
    code_challenge_methods_supported: ['S256'],
  };
  const fetchVia = async (url: string, init: { body?: unknown; headers: Record<string, string>; method: string; signal?: AbortSignal }): Promise<Response> => {
    if (!url.startsWith(`${base}/`)) throw new Error(`refusing an OAuth request outside ${base}: ${url}`);
    const path = url.slice(base.length);
    const [pathname, query] = path.split('?', 2) as [string, string | undefined];
    const headers = Object.fromEntries(Object.entries(init.headers).filter(([k]) => !['user-agent', 'content-type'].includes(k.toLowerCase())));
    const body = init.body instanceof URLSearchParams ? Object.fromEntries(init.body) : undefined;
    const res = await http.request({
      method: init.method === 'POST' ? 'POST' : 'GET',
      root: 'oauth2',
      path: pathname,
      ...(query ? { query: Object.fromEntries(new URLSearchParams(query)) } : {}),
      headers,
      ...(body ? { form: body } : {}),
      auth: false,
      idempotent: false,
      // oauth4webapi reads the refusals itself (RFC 6749 JSON). A 5xx is the service failing, not refusing:
      // the client's usual status error, with the status and the start of the service's text.
      accept: [400, 401, 403, 404, 405, 429],
      ...(init.signal ? { signal: init.signal } : {}),
    });
    const text = await boundedText(res, `${init.method === 'POST' ? 'POST' : 'GET'} ${base}${pathname}`);
    const answer = new Headers();
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) answer.set(k, Array.isArray(v) ? v.join(', ') : v);
    // Some services (GitHub's) refuse a token request with a 200 carrying an RFC 6749 `error`: it is handed on as
    // the 400 it stands for, so it reads as the service's refusal, in its own words.
    const status = res.status === 200 && pathname === '/token' && isRefusal(text) ? 400 : res.status;
    return new Response(status === 204 || status === 205 ? null : text, { status, headers: answer });
  };
  return {
    as,
    client: { client_id: clientId },
    options: { [libs.oauth.customFetch]: fetchVia, [libs.oauth.allowInsecureRequests]: base.startsWith('http:') },
    redirectPath: REDIRECT_PATH,
  };
}
