/**
 * Browser sessions of the sign-in pages, in the `SERVICEID` cookie (HttpOnly,
 * SameSite=Lax, Path=/<instance>, Secure over HTTPS). The cookie holds 32
 * random bytes; the `_websessions` table keeps their SHA-256, a CSRF secret,
 * the signed-in user, and a two-factor user between password and code
 * (`pending`, for a few minutes and a few wrong codes). Signing in replaces
 * the session's ID and CSRF secret (no session fixation). A form's CSRF token
 * is an HMAC of its step and authorization request under the session's secret.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { nowSeconds, type SandboxContext } from '../context.js';
import { prepareCached } from '../data/query/statements.js';
import { table } from '../schema.js';

/** The session cookie's name (the service's carries its product name in place of SERVICE). */
export const SESSION_COOKIE = 'SERVICEID';
/** How long a browser session lasts. */
export const SESSION_TTL_SECONDS = 8 * 3600;
/** How long a two-factor user has to enter the code after the password. */
export const PENDING_TTL_SECONDS = 300;
/** Wrong codes after which the password must be entered again. */
export const MAX_OTP_ATTEMPTS = 5;

export interface WebSession {
  /** SHA-256 of the cookie value. */
  readonly id: string;
  readonly csrf: string;
  readonly user: number | null;
  readonly pending: number | null;
  readonly pendingexp: number | null;
  readonly attempts: number;
  readonly expires: number;
}

const hashOf = (cookie: string): string => createHash('sha256').update(cookie).digest('hex');

/** The SERVICEID value of a request's Cookie header, when it has the form this sandbox gives it. */
export function sessionCookie(headers: IncomingHttpHeaders): string | undefined {
  for (const part of (headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    if (/^[0-9a-f]{64}$/.test(value)) return value;
  }
  return undefined;
}

/** The unexpired session of a request's cookie, if any. */
export function findWebSession(ctx: SandboxContext, headers: IncomingHttpHeaders): WebSession | undefined {
  const cookie = sessionCookie(headers);
  if (!cookie) return undefined;
  const row = prepareCached(
    ctx.db,
    `SELECT id, csrf, user, pending, pendingexp, attempts, expires FROM ${table(ctx.instance, '_websessions')} WHERE id = ? AND expires > ?`,
  ).get(hashOf(cookie), nowSeconds(ctx)) as WebSession | undefined;
  return row;
}

/** The Set-Cookie header of a session cookie (an empty value and Max-Age=0 clear it). */
export function setCookie(ctx: SandboxContext, value: string, maxAge = SESSION_TTL_SECONDS): string {
  const secure = ctx.https ? '; Secure' : '';
  return `${SESSION_COOKIE}=${value}; Path=/${ctx.instance}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;
}

/**
 * A new session, signed in as `user` when given, and its cookie value. Also
 * drops the instance's expired sessions.
 */
export function createWebSession(ctx: SandboxContext, user: number | null = null): { session: WebSession; cookie: string } {
  const now = nowSeconds(ctx);
  const cookie = randomBytes(32).toString('hex');
  const session: WebSession = {
    id: hashOf(cookie),
    csrf: randomBytes(32).toString('hex'),
    user,
    pending: null,
    pendingexp: null,
    attempts: 0,
    expires: now + SESSION_TTL_SECONDS,
  };
  const t = table(ctx.instance, '_websessions');
  prepareCached(ctx.db, `DELETE FROM ${t} WHERE expires <= ?`).run(now);
  prepareCached(ctx.db, `INSERT INTO ${t} (id, csrf, user, expires, created) VALUES (?, ?, ?, ?, ?)`).run(session.id, session.csrf, user, session.expires, now);
  return { session, cookie };
}

/** Signs a user in: the old session is dropped and a new one (new cookie, new CSRF secret) made for the user. */
export function signIn(ctx: SandboxContext, old: WebSession, user: number): { session: WebSession; cookie: string } {
  prepareCached(ctx.db, `DELETE FROM ${table(ctx.instance, '_websessions')} WHERE id = ?`).run(old.id);
  return createWebSession(ctx, user);
}

/** Records that `user` passed the password and owes a one-time code (signing out whoever was signed in). */
export function setPending(ctx: SandboxContext, session: WebSession, user: number): WebSession {
  const pendingexp = nowSeconds(ctx) + PENDING_TTL_SECONDS;
  prepareCached(ctx.db, `UPDATE ${table(ctx.instance, '_websessions')} SET user = NULL, pending = ?, pendingexp = ?, attempts = 0 WHERE id = ?`).run(
    user,
    pendingexp,
    session.id,
  );
  return { ...session, user: null, pending: user, pendingexp, attempts: 0 };
}

/** The user who owes a one-time code, while the time and attempts allow; undefined when the password must be given again. */
export function pendingUser(ctx: SandboxContext, session: WebSession): number | undefined {
  if (session.pending === null || session.pendingexp === null) return undefined;
  if (session.pendingexp <= nowSeconds(ctx) || session.attempts >= MAX_OTP_ATTEMPTS) return undefined;
  return session.pending;
}

/** Counts a wrong code; true when that used up the attempts (the pending user is then cleared). */
export function failOtp(ctx: SandboxContext, session: WebSession): boolean {
  const attempts = session.attempts + 1;
  const t = table(ctx.instance, '_websessions');
  if (attempts >= MAX_OTP_ATTEMPTS) {
    prepareCached(ctx.db, `UPDATE ${t} SET pending = NULL, pendingexp = NULL, attempts = 0 WHERE id = ?`).run(session.id);
    return true;
  }
  prepareCached(ctx.db, `UPDATE ${t} SET attempts = ? WHERE id = ?`).run(attempts, session.id);
  return false;
}

/** The CSRF token of one form of a session: bound to the session, the form's step and what it carries. */
export function csrfToken(session: WebSession, form: string): string {
  return createHmac('sha256', session.csrf).update(form).digest('hex');
}

/** Whether `given` is the CSRF token of this form of this session (compared in constant time). */
export function isCsrfValid(session: WebSession, form: string, given: string | undefined): boolean {
  if (given === undefined || !/^[0-9a-f]{64}$/.test(given)) return false;
  return timingSafeEqual(Buffer.from(csrfToken(session, form), 'hex'), Buffer.from(given, 'hex'));
}
