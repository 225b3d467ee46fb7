/**
 * `svc login`: gathers the user's secrets, signs in (asking for the one-time
 * code on a terminal when the account needs one), keeps the token in the
 * keychain (or, with --insecure-storage, a 0600 file) and remembers the user
 * and expiry in the profile. News for the person goes to stderr; data to
 * stdout only when asked for with -o.
 */
import { accountName } from '../../../auth/store.js';
import { clientOptions } from '../../../cli/connection.js';
import type { Context } from '../../../cli/context.js';
import { ask, canPrompt } from '../../../cli/prompt.js';
import { createHttpClient, type HttpClient } from '../../../http/client.js';
import { InterruptedError } from '../../../errors.js';
import { shown } from '../../../util/shown.js';
import type { LoginOptions } from './options.js';
import { checkInputSources, chooseLoginStore, gatherInputs, keepSignIn, needOtp, shadowedSignIn } from './inputs.js';
import { isOtpRequest, loginError, loginForm, requestToken, type TokenObject } from './request.js';

export async function runLogin(opts: LoginOptions, ctx: Context): Promise<void> {
  const { deps } = ctx;
  const profiles = await ctx.profiles();
  const target = await ctx.target();
  // What can only come from flags first (exit 2), then the store (exit 1 without a keychain), then the secrets.
  checkInputSources(deps, opts);
  const expdate = opts.expiresMs !== undefined ? Math.floor((deps.now() + opts.expiresMs) / 1000) : undefined;
  const store = await chooseLoginStore(deps, opts);
  const inputs = await gatherInputs(deps, opts, store, target);
  const otp = opts.otp ?? deps.env.SVC_OTP;
  const form = loginForm(inputs, target, otp, expdate);
  // No token: login is how one is got (the credential chain is not consulted).
  let client: HttpClient | undefined;
  let token: TokenObject;
  try {
    client = createHttpClient(clientOptions(ctx.globals, deps, target, undefined));
    try {
      token = await requestToken(client, form);
    } catch (err) {
      if (!isOtpRequest(err) || otp) throw loginError(err);
      if (!canPrompt(deps)) needOtp();
      form.otp = await ask(deps, 'one-time code');
      token = await requestToken(client, form).catch((e: unknown) => Promise.reject(loginError(e)));
    }
  } finally {
    await client?.close();
  }
  const { stopped } = await keepSignIn(deps, store, target, profiles, { user: inputs.user, insecureStorage: opts.insecureStorage, tokenExpires: token.expdate ?? undefined }, async () => {
    await store.set(accountName(target.key, 'token'), token.token);
    if (inputs.appsecretIsNew) await store.set(accountName(target.key, 'appsecret'), inputs.appsecret);
  });
  const expires = token.expdate ? new Date(token.expdate * 1000).toISOString().slice(0, 10) : 'never';
  deps.stderr.write(`signed in to ${shown(target.label)} as ${shown(inputs.user)} (token in the ${store.kind}, expires ${expires})\n`);
  const shadowed = shadowedSignIn(deps, ctx.globals.tokenFile);
  if (shadowed) deps.stderr.write(`${shadowed}\n`);
  if (stopped) throw new InterruptedError(`interrupted by ${stopped}, after the sign-in was kept`);
  if (ctx.globals.output !== undefined) {
    const value = { target: target.label, url: target.instanceUrl, user: inputs.user, storage: store.kind, expdate: token.expdate };
    await ctx.emit({ kind: 'object', value, details: Object.entries(value).map(([k, v]) => [k, String(v)] as [string, string]) });
  }
}
