/**
 * `GET` and `POST /authorize`: the browser side of the Authorization Code
 * flow. GET checks the request and shows the sign-in page (or, for a session
 * already signed in, the consent page). Each form posts back here with the
 * request in hidden fields; every POST checks the client and redirect URI
 * again, then the session cookie and the form's CSRF token (403 without
 * them), then runs its step: `signin` (password; a two-factor user then gets
 * the `otp` step), `otp`, and `consent`, whose approval redirects with a
 * code and whose denial with `error=access_denied`.
 */
import { checkOtp, checkPassword, CredentialError, type CredentialFailure } from '../auth/credentials.js';
import { useOtpStep } from '../auth/otp-steps.js';
import { nowSeconds, type RequestInfo, type SandboxContext } from '../context.js';
import { prepareCached } from '../data/query/statements.js';
import type { Reply } from '../http/respond.js';
import { table } from '../schema.js';
import {
  authorizePath,
  carriedParams,
  redirectError,
  redirectTo,
  REQUEST_PARAMS,
  requestError,
  resolveTarget,
  type AuthorizationTarget,
} from './authorize-request.js';
import { issueCode } from './codes.js';
import { consentPage, errorPage, htmlReply, otpPage, signInPage, type FormContext } from './pages.js';
import { bodyParams, queryParams, type Params } from './params.js';
import { activeUser } from './users.js';
import {
  createWebSession,
  csrfToken,
  failOtp,
  findWebSession,
  isCsrfValid,
  pendingUser,
  setCookie,
  setPending,
  signIn,
  type WebSession,
} from './web-sessions.js';

const POST_PARAMS = [...REQUEST_PARAMS, 'step', 'csrf_token', 'username', 'password', 'otp', 'decision'];

/** What a step works with. */
interface Flow {
  readonly ctx: SandboxContext;
  readonly target: AuthorizationTarget;
  readonly params: Params;
  /** The authorization request, carried by every form. */
  readonly request: ReadonlyMap<string, string>;
}

/** What a form's CSRF token is bound to besides the session: its step and the request it carries. */
function formKey(step: string, request: ReadonlyMap<string, string>): string {
  return JSON.stringify([step, ...[...request].sort(([a], [b]) => a.localeCompare(b))]);
}

function formFor(flow: Flow, session: WebSession, step: string): FormContext {
  return { action: authorizePath(flow.ctx), request: flow.request, csrf: csrfToken(session, formKey(step, flow.request)) };
}

function signInReply(flow: Flow, session: WebSession, status: number, opts: { message?: string; username?: string } = {}, headers: Record<string, string> = {}): Reply {
  return htmlReply(status, signInPage(formFor(flow, session, 'signin'), flow.target.client.name, opts), headers);
}

/** The consent page for the session's user, or the sign-in page when nobody (able to) is signed in. */
function nextPage(flow: Flow, session: WebSession, headers: Record<string, string> = {}): Reply {
  const user = activeUser(flow.ctx, session.user);
  if (!user) return signInReply(flow, session, 200, {}, headers);
  return htmlReply(200, consentPage(formFor(flow, session, 'consent'), flow.target.client.name, user), headers);
}

/** A signed-in session replaces the old one: its cookie goes with the consent page. */
function signedIn(flow: Flow, old: WebSession, user: number): Reply {
  const { session, cookie } = signIn(flow.ctx, old, user);
  return nextPage(flow, session, { 'Set-Cookie': setCookie(flow.ctx, cookie) });
}

const SIGN_IN_MESSAGES: Readonly<Partial<Record<CredentialFailure, string>>> = {
  inactive: 'This user cannot sign in: the account is not active.',
  expired: 'This user cannot sign in: the account has expired.',
};

function stepSignIn(flow: Flow, session: WebSession): Reply {
  const bad = flow.params.problem(['username', 'password']);
  if (bad) return signInReply(flow, session, 400, { message: `The form is malformed: ${bad.message}.` });
  const username = flow.params.get('username');
  const password = flow.params.get('password');
  if (username === undefined || password === undefined) return signInReply(flow, session, 400, { message: 'Enter your user name and password.', username });
  try {
    const account = checkPassword(flow.ctx, username, password, nowSeconds(flow.ctx));
    if (!account.otpsecret) return signedIn(flow, session, account.ID);
    const pending = setPending(flow.ctx, session, account.ID);
    return htmlReply(200, otpPage(formFor(flow, pending, 'otp')));
  } catch (err) {
    if (!(err instanceof CredentialError)) throw err;
    // The same words for an unknown user and a wrong password: nothing tells which part was wrong.
    return signInReply(flow, session, 401, { message: SIGN_IN_MESSAGES[err.reason] ?? 'Wrong user name or password.', username });
  }
}

const OTP_MESSAGES: Readonly<Partial<Record<CredentialFailure, string>>> = {
  'otp-missing': 'Enter the 6-digit code from your authenticator app.',
  'otp-used': 'That code was used already; wait for the next one.',
};

function otpSecretOf(ctx: SandboxContext, user: number): string | undefined {
  const row = prepareCached(ctx.db, `SELECT otpsecret FROM ${table(ctx.instance, '_passwords')} WHERE user = ?`).get(user) as { otpsecret: string | null } | undefined;
  return row?.otpsecret ?? undefined;
}

function stepOtp(flow: Flow, session: WebSession): Reply {
  const user = pendingUser(flow.ctx, session);
  const secret = user === undefined || !activeUser(flow.ctx, user) ? undefined : otpSecretOf(flow.ctx, user);
  if (user === undefined || secret === undefined) return signInReply(flow, session, 401, { message: 'The sign-in timed out or was interrupted; sign in again.' });
  const bad = flow.params.problem(['otp']);
  if (bad) return htmlReply(400, otpPage(formFor(flow, session, 'otp'), { message: `The form is malformed: ${bad.message}.` }));
  try {
    const step = checkOtp(flow.ctx, user, secret, flow.params.get('otp'), nowSeconds(flow.ctx));
    useOtpStep(flow.ctx, user, step);
    return signedIn(flow, session, user);
  } catch (err) {
    if (!(err instanceof CredentialError)) throw err;
    if (failOtp(flow.ctx, session)) return signInReply(flow, session, 401, { message: 'Too many wrong codes; sign in again.' });
    return htmlReply(401, otpPage(formFor(flow, session, 'otp'), { message: OTP_MESSAGES[err.reason] ?? 'The code is wrong or has expired.' }));
  }
}

function stepConsent(flow: Flow, session: WebSession): Reply {
  const user = activeUser(flow.ctx, session.user);
  if (!user) return signInReply(flow, session, 401, { message: 'You are no longer signed in; sign in again.' });
  const state = flow.params.get('state');
  const decision = flow.params.get('decision');
  if (decision === 'deny') return redirectError(flow.target, flow.params, { error: 'access_denied', description: 'the user denied access' });
  if (decision !== 'approve') {
    return htmlReply(400, consentPage(formFor(flow, session, 'consent'), flow.target.client.name, user));
  }
  const code = issueCode(flow.ctx, {
    application: flow.target.client.id,
    user: user.id,
    redirectUri: flow.target.redirectUri,
    challenge: flow.params.get('code_challenge'),
  });
  return redirectTo(flow.target.redirectUri, { code, state });
}

const STEPS: ReadonlyMap<string, (flow: Flow, session: WebSession) => Reply> = new Map([
  ['signin', stepSignIn],
  ['otp', stepOtp],
  ['consent', stepConsent],
]);

/** `GET /authorize`: checks the request and shows the first page, making a session when there is none. */
export function authorizeGet(ctx: SandboxContext, info: RequestInfo): Reply {
  const params = queryParams(info.rawQuery ?? '', REQUEST_PARAMS);
  const target = resolveTarget(ctx, params);
  const err = requestError(params);
  if (err) return redirectError(target, params, err);
  const flow: Flow = { ctx, target, params, request: carriedParams(params) };
  const existing = findWebSession(ctx, info.headers);
  if (existing) return nextPage(flow, existing);
  const { session, cookie } = createWebSession(ctx);
  return nextPage(flow, session, { 'Set-Cookie': setCookie(ctx, cookie) });
}

/** `POST /authorize`: one step of the flow, after the request, the session and the CSRF token are checked. */
export function authorizePost(ctx: SandboxContext, info: RequestInfo): Reply {
  const params = bodyParams(info.body, POST_PARAMS);
  const target = resolveTarget(ctx, params);
  const flow: Flow = { ctx, target, params, request: carriedParams(params) };
  const step = params.get('step') ?? '';
  const session = findWebSession(ctx, info.headers);
  if (!session || !isCsrfValid(session, formKey(step, flow.request), params.get('csrf_token'))) {
    const restart = `${authorizePath(ctx)}?${new URLSearchParams([...flow.request]).toString()}`;
    const text = session
      ? 'This form is out of date or was not sent by this sign-in page (CSRF check failed); start again.'
      : 'Your sign-in session has expired, or this browser does not keep cookies; start again.';
    return htmlReply(403, errorPage('Forbidden', text, restart));
  }
  const err = requestError(params);
  if (err) return redirectError(target, params, err);
  const run = STEPS.get(step);
  if (!run) return htmlReply(400, errorPage('Cannot authorize', 'This form has an unknown step; start again.'));
  return run(flow, session);
}
