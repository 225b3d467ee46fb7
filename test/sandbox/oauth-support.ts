/**
 * What the OAuth tests share: a tiny browser (Node's fetch with
 * `redirect: 'manual'` and a cookie jar) that reads the sandbox's HTML forms
 * and posts them back as a browser would, the client credentials of the
 * seeded applications, and the steps of the Authorization Code flow.
 */
import { createHash, randomBytes } from 'node:crypto';
import { decodeBase32, totp } from '../../src/sandbox/auth/totp.js';
import type { TestSandbox } from '../helpers/sandbox.js';

/** A redirect URI the seeded svc-cli application accepts (a loopback one, on some port). */
export const REDIRECT = 'http://127.0.0.1:53682/callback';

export interface Page {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The Location of a redirect, parsed. */
  readonly location?: URL;
}

/** A form of a page: its action and the fields it would send (hidden ones, and the named inputs with their values). */
export interface HtmlForm {
  readonly id: string;
  readonly action: string;
  readonly fields: Record<string, string>;
}

function unescapeHtml(text: string): string {
  return text.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n))).replace(/&(amp|lt|gt|quot);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"' })[e] ?? '');
}

/** The forms of a page, read with a regular expression (the sandbox writes one tag per line, attributes double-quoted). */
export function formsOf(html: string): HtmlForm[] {
  return [...html.matchAll(/<form id="([^"]*)" method="post" action="([^"]*)">([\s\S]*?)<\/form>/g)].map(([, id, action, body]) => {
    const fields: Record<string, string> = {};
    for (const [, name, value] of (body ?? '').matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) fields[unescapeHtml(name ?? '')] = unescapeHtml(value ?? '');
    return { id: id ?? '', action: unescapeHtml(action ?? ''), fields };
  });
}

/** The one form of a page; throws (showing the page) when there is not exactly one. */
export function formOf(page: Page, id?: string): HtmlForm {
  const forms = formsOf(page.text).filter((f) => id === undefined || f.id === id);
  if (forms.length !== 1) throw new Error(`expected one form${id ? ` '${id}'` : ''} on the page (${page.status}):\n${page.text}`);
  return forms[0]!;
}

/** A browser of one test: cookies it was given, sent back to the sandbox's origin. */
export function createBrowser(t: TestSandbox) {
  const jar = new Map<string, string>();
  const send = async (url: string, init: RequestInit = {}): Promise<Page> => {
    const headers = new Headers(init.headers);
    if (jar.size > 0 && !headers.has('cookie')) headers.set('cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    const location = res.headers.get('location');
    return { status: res.status, headers: res.headers, text: await res.text(), ...(location ? { location: new URL(location) } : {}) };
  };
  const absolute = (path: string): string => (path.startsWith('http') ? path : `${t.sandbox.origin}${path}`);
  return {
    jar,
    get: (path: string, headers: Record<string, string> = {}) => send(absolute(path), { headers }),
    /** Posts a form as a browser does (form-encoded), with extra or changed fields. */
    submit: (form: HtmlForm, extra: Record<string, string | undefined> = {}) => {
      const fields = Object.entries({ ...form.fields, ...extra }).filter((e): e is [string, string] => e[1] !== undefined);
      return send(absolute(form.action), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
    },
    post: (path: string, body: string, type = 'application/x-www-form-urlencoded', headers: Record<string, string> = {}) =>
      send(absolute(path), { method: 'POST', headers: { 'content-type': type, ...headers }, body }),
  };
}

export type Browser = ReturnType<typeof createBrowser>;

/** The /authorize path of the demo instance with these parameters (svc-cli, REDIRECT and response_type=code unless given). */
export function authorizePath(params: Record<string, string | undefined> = {}): string {
  const all = { client_id: 'svc-cli', redirect_uri: REDIRECT, response_type: 'code', ...params };
  const query = new URLSearchParams(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined));
  return `/demo/oauth2/v1/authorize?${query.toString()}`;
}

/** A PKCE pair: a random verifier and its S256 challenge, computed here apart from the sandbox's code. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** `Authorization: Basic` of a client id and secret (form-encoded first, RFC 6749 section 2.3.1). */
export function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

/** The /token answer. */
export interface Tokens {
  readonly access_token: string;
  readonly token_type: string;
  readonly expires_in: number;
  readonly refresh_token: string;
  readonly refresh_token_expires_in: number;
}

/** Helpers bound to the running test's sandbox and clock. */
export function oauthHelpers(sandbox: () => TestSandbox, clockSeconds: () => number) {
  const app = (identifier: string) => {
    const found = sandbox().sandbox.credentials.demo?.applications.find((a) => a.identifier === identifier);
    if (!found) throw new Error(`no seeded application ${identifier}`);
    return found;
  };
  const secretOf = (identifier = 'svc-cli'): string => app(identifier).appsecret;
  /** POST to an OAuth endpoint with form fields, as a client: Basic credentials of svc-cli unless told otherwise. */
  const post = async (endpoint: string, fields: Record<string, string>, opts: { auth?: string | null; json?: boolean } = {}) => {
    const headers: Record<string, string> = {};
    const auth = opts.auth === undefined ? basic('svc-cli', secretOf()) : opts.auth;
    if (auth) headers.authorization = auth;
    const res = await fetch(`${sandbox().sandbox.origin}/demo/oauth2/v1/${endpoint}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': opts.json ? 'application/json' : 'application/x-www-form-urlencoded' },
      body: opts.json ? JSON.stringify(fields) : new URLSearchParams(fields).toString(),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: <T = Record<string, unknown>>() => JSON.parse(text) as T };
  };
  /** The current one-time code of a two-factor user, at the sandbox clock. */
  const otpOf = (user: string, offsetSteps = 0): string => totp(decodeBase32(sandbox().user(user).otpsecret ?? ''), clockSeconds() + offsetSteps * 30);

  /** Signs a user in on the sign-in page (and the code page of a two-factor user); resolves to the consent page. */
  const signIn = async (browser: Browser, user: string, params: Record<string, string | undefined> = {}): Promise<Page> => {
    const start = await browser.get(authorizePath(params));
    if (start.status !== 200) throw new Error(`GET /authorize answered ${start.status}:\n${start.text}`);
    let page = await browser.submit(formOf(start, 'signin-form'), { username: user, password: sandbox().user(user).password });
    if (sandbox().user(user).otpsecret) page = await browser.submit(formOf(page, 'otp-form'), { otp: otpOf(user) });
    return page;
  };
  /** Signs in and approves; resolves to the redirect's query parameters. */
  const authorize = async (browser: Browser, user = 'demo', params: Record<string, string | undefined> = {}): Promise<URLSearchParams> => {
    const consent = await signIn(browser, user, params);
    const done = await browser.submit(formOf(consent, 'consent-form'), { decision: 'approve' });
    if (done.status !== 303 || !done.location) throw new Error(`approval answered ${done.status}:\n${done.text}`);
    return done.location.searchParams;
  };
  /** Exchanges a code at /token; resolves to the answer. */
  const exchange = (code: string, extra: Record<string, string> = {}) => post('token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, ...extra });
  /** The whole flow for a user: tokens, or throws. */
  const tokensFor = async (browser: Browser, user = 'demo'): Promise<Tokens> => {
    const code = (await authorize(browser, user)).get('code') ?? '';
    const answer = await exchange(code);
    if (answer.status !== 200) throw new Error(`token exchange answered ${answer.status}: ${answer.text}`);
    return answer.json<Tokens>();
  };
  return { secretOf, appId: (identifier: string) => app(identifier).id, post, otpOf, signIn, authorize, exchange, tokensFor };
}
