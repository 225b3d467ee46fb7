/**
 * `svc login --web`: a browser sign-in through the service's OAuth 2.0
 * interface (src/auth/oauth/web-login.ts does the flow). Here: the client id
 * (flag, else the profile's) and secret (SVC_CLIENT_SECRET, stdin, the store,
 * or a hidden question on a terminal), the store the tokens go to (checked to
 * work first, as for a password login), the browser, Ctrl-C, and what is
 * kept afterwards: the tokens and the secret in the store, the client id,
 * user and expiry in the profile. Nothing is kept unless the sign-in
 * completes.
 */
import { quoted } from '../../../auth/oauth/errors.js';
import { serializeGrant } from '../../../auth/oauth/grant.js';
import { webLogin } from '../../../auth/oauth/web-login.js';
import { accountName, type CredentialStore } from '../../../auth/store.js';
import { openInBrowser } from '../../../cli/browser.js';
import { clientOptions, type Target } from '../../../cli/connection.js';
import type { Context } from '../../../cli/context.js';
import type { Deps } from '../../../cli/deps.js';
import { webLoginCommand } from '../../../cli/oauth-credential.js';
import { checkClientId } from '../../../config/client-id.js';
import { ask, canPrompt, readAllStdin } from '../../../cli/prompt.js';
import { InterruptedError, UsageError } from '../../../errors.js';
import { createHttpClient } from '../../../http/client.js';
import { shown } from '../../../util/shown.js';
import { chooseStore, keepSignIn, shadowedSignIn, storeFits } from './inputs.js';
import type { LoginOptions, WebLoginOptions } from './options.js';

/** The client secret: SVC_CLIENT_SECRET, --client-secret-stdin, the one kept for the target, or asked on a terminal. */
async function clientSecretOf(deps: Deps, web: WebLoginOptions, store: CredentialStore, target: Target, clientId: string): Promise<{ secret: string; isNew: boolean }> {
  // Kept in the store whatever its source: every later command may need it to renew the tokens.
  const fromEnv = deps.env.SVC_CLIENT_SECRET;
  if (fromEnv) return { secret: fromEnv, isNew: true };
  if (web.clientSecretStdin) {
    const secret = (await readAllStdin(deps)).trim();
    if (!secret) throw new UsageError('the client secret on stdin is empty');
    return { secret, isNew: true };
  }
  const stored = storeFits(store, target) ? await store.get(accountName(target.key, 'clientsecret')) : undefined;
  if (stored) return { secret: stored, isNew: false };
  if (!canPrompt(deps)) {
    throw new UsageError(`the client secret of ${clientId} is needed and there is no terminal to ask on: set SVC_CLIENT_SECRET, or pass --client-secret-stdin`);
  }
  const typed = await ask(deps, `client secret of ${clientId}`, { hidden: true });
  if (!typed) throw new UsageError('the client secret is empty');
  return { secret: typed, isNew: true };
}

/** Standard input as lines, for a pasted redirect URL. */
async function* linesOf(deps: Deps): AsyncGenerator<string> {
  let rest = '';
  for await (const chunk of deps.stdin) {
    rest += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    // A pasted address is one line; a reader that never sends a line end is cut off at 64 KiB.
    if (rest.length > 65_536) rest = rest.slice(-65_536);
    const lines = rest.split(/\r?\n/);
    rest = lines.pop() ?? '';
    yield* lines;
  }
  if (rest) yield rest;
}

/**
 * Who signed in: the userinfo's user name, when the service tells (best
 * effort; the sign-in stands either way), as one line of at most 200
 * characters. Ctrl-C (`signal`) stops the request, and the sign-in.
 */
async function userName(http: ReturnType<typeof createHttpClient>, accessToken: string, signal: AbortSignal): Promise<string | undefined> {
  try {
    const res = await http.request({ method: 'GET', root: 'oauth2', path: '/userinfo', auth: false, headers: { authorization: `Bearer ${accessToken}` }, signal });
    const info = await res.json<unknown>();
    const name = typeof info === 'object' && info !== null && Object.hasOwn(info, 'preferred_username') ? (info as Record<string, unknown>).preferred_username : undefined;
    const shown = typeof name === 'string' ? quoted(name).slice(0, 200) : '';
    return shown || undefined;
  } catch {
    if (signal.aborted) throw signal.reason;
    return undefined;
  }
}

export async function runWebLogin(opts: LoginOptions, web: WebLoginOptions, ctx: Context): Promise<void> {
  const { deps } = ctx;
  const profiles = await ctx.profiles();
  const target = await ctx.target();
  const clientId = web.clientId ?? target.profile?.clientId;
  if (!clientId) {
    const where = target.profile ? `, or keep it in the profile: svc profile add ${target.profile.name} --client-id ID` : '';
    throw new UsageError(`no OAuth client for a browser sign-in: pass --client-id ID (the identifier of the service's application)${where}`);
  }
  checkClientId(clientId);
  const store = await chooseStore(deps, opts.insecureStorage);
  const { secret, isNew } = await clientSecretOf(deps, web, store, target, clientId);

  const controller = new AbortController();
  const stop = (signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP') => (): void => controller.abort(new InterruptedError(`interrupted by ${signal}; not signed in`));
  deps.processes?.onceSignal('SIGINT', stop('SIGINT'));
  deps.processes?.onceSignal('SIGTERM', stop('SIGTERM'));
  // A dropped ssh connection while the browser is awaited: the same orderly end (the callback listener closed, exit 130).
  deps.processes?.onceSignal('SIGHUP', stop('SIGHUP'));

  const http = createHttpClient(clientOptions(ctx.globals, deps, target, undefined));
  const signIn = webLoginCommand(target);
  let grant;
  let user: string | undefined;
  try {
    grant = await webLogin({
      http,
      clientId,
      clientSecret: secret,
      open: (url) => (web.browser ? openInBrowser(deps, url) : Promise.resolve(false)),
      announce: (url, opened) => {
        const how = opened
          ? 'Sign in in the browser window that opened; if none did, open this address:'
          : web.browser
            ? 'No browser could be started; open this address in one:'
            : 'Open this address in a browser (on any machine):';
        const paste = web.browser ? '' : '\nIf the browser cannot reach this machine, paste here the address it ends on, then press Enter.';
        deps.stderr.write(`${how}\n\n  ${url}\n${paste}\nWaiting for the sign-in (Ctrl-C to stop)…\n`);
      },
      pasted: web.browser ? undefined : linesOf(deps),
      warn: (m) => void deps.stderr.write(`svc: ${m}\n`),
      waitMs: web.waitMs,
      signal: controller.signal,
      now: () => deps.now(),
      signIn,
    });
    user = await userName(http, grant.accessToken, controller.signal);
    // Interrupted after the tokens came: they are not kept (the service ends them by themselves).
    controller.signal.throwIfAborted();
  } finally {
    // The paste reader may still wait on stdin: stop reading, so it cannot keep svc running.
    deps.stdin.pause?.();
    await http.close();
  }
  // The secret first: tokens stored without it could not be renewed, a secret without tokens is merely not signed in.
  const { stopped } = await keepSignIn(deps, store, target, profiles, { clientId, insecureStorage: opts.insecureStorage, user, tokenExpires: grant.refreshExpiresAt }, async () => {
    if (isNew) await store.set(accountName(target.key, 'clientsecret'), secret);
    await store.set(accountName(target.key, 'token'), serializeGrant(grant));
  });
  const expires = grant.refreshExpiresAt ? new Date(grant.refreshExpiresAt * 1000).toISOString().slice(0, 10) : 'unknown';
  deps.stderr.write(`signed in to ${shown(target.label)}${user ? ` as ${shown(user)}` : ''} with a browser (client ${clientId}; tokens in the ${store.kind}, renewed by themselves until ${expires})\n`);
  const shadowed = shadowedSignIn(deps, ctx.globals.tokenFile);
  if (shadowed) deps.stderr.write(`${shadowed}\n`);
  if (stopped) throw new InterruptedError(`interrupted by ${stopped}, after the sign-in was kept`);
  if (ctx.globals.output !== undefined) {
    const value = { target: target.label, url: target.instanceUrl, user: user ?? null, clientId, storage: store.kind, expires: grant.refreshExpiresAt ?? null };
    await ctx.emit({ kind: 'object', value, details: Object.entries(value).map(([k, v]) => [k, String(v)] as [string, string]) });
  }
}
