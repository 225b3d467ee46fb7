/**
 * `POST /login`: checks a user's name (or e-mail) and password, the one-time
 * code of a two-factor user and an optional application secret, then issues
 * a bearer token for the client's identifier. Error texts never repeat what
 * the client sent for a password, secret or code.
 */
import { nowSeconds, type SandboxContext } from '../context.js';
import { badRequest, type HttpError } from '../errors.js';
import { table } from '../schema.js';
import { applicationOfSecret } from './app-secrets.js';
import { hashSecret, randomSecret, verifySecret } from './passwords.js';
import { unauthorized } from './session.js';
import { issueToken, type TokenRow } from './tokens.js';
import { isUnusedOtpStep, useOtpStep } from './otp-steps.js';
import { matchTotp } from './totp.js';

/** The fields of a login request, checked for presence and form. */
export interface LoginRequest {
  readonly name: string;
  readonly password: string;
  readonly identifier: string;
  readonly appsecret?: string;
  readonly otp?: string;
  /** Unix seconds; undefined means the default lifetime. */
  readonly expdate?: number;
}

const IDENTIFIER = /^[a-zA-Z0-9_.:-]+$/;

function field(body: Record<string, unknown>, key: string): string | undefined {
  // Own keys only: a polluted Object.prototype must not supply a secret or code.
  const value = Object.hasOwn(body, key) ? body[key] : undefined;
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw badRequest(`Bad Request: '${key}' must be a string`);
}

function required(body: Record<string, unknown>, key: string): string {
  const value = field(body, key);
  if (value === undefined || value === '') throw badRequest(`Bad Request: '${key}' is required`);
  return value;
}

function parseExpdate(text: string | undefined, now: number): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  if (!/^-?\d{1,15}$/.test(text.trim())) throw badRequest("Bad Request: 'expdate' must be a Unix timestamp in seconds");
  const expdate = Number(text.trim());
  if (expdate <= now) throw badRequest("Bad Request: 'expdate' must be in the future");
  return expdate;
}

/** Reads a login body (JSON or form); a missing or malformed field is a 400. */
export function parseLogin(body: unknown, now: number): LoginRequest {
  const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const name = required(fields, 'name');
  const password = required(fields, 'password');
  const identifier = required(fields, 'identifier');
  if (!IDENTIFIER.test(identifier)) {
    throw badRequest("Bad Request: 'identifier' may only hold letters, digits and the characters _ . : -");
  }
  const appsecret = field(fields, 'appsecret');
  const otp = field(fields, 'otp');
  const expdate = parseExpdate(field(fields, 'expdate'), now);
  return { name, password, identifier, appsecret, otp, expdate };
}

interface Account {
  ID: number;
  activity: number;
  expdate: number | null;
  hash: string | null;
  otpsecret: string | null;
}

function findAccount(ctx: SandboxContext, name: string): Account | undefined {
  const users = table(ctx.instance, 'users');
  const passwords = table(ctx.instance, '_passwords');
  return ctx.db
    .prepare(
      `SELECT u."ID" AS ID, u.activity AS activity, u.expdate AS expdate, p.hash AS hash, p.otpsecret AS otpsecret
       FROM ${users} u LEFT JOIN ${passwords} p ON p.user = u."ID"
       WHERE lower(u.name) = lower(?) OR lower(u.email) = lower(?)
       ORDER BY (lower(u.name) = lower(?)) DESC, u."ID" LIMIT 1`,
    )
    .get(name, name, name) as Account | undefined;
}

let decoyHash: string | undefined;

/** Checks the password even for an unknown user, so timing does not tell which names exist. */
function passwordMatches(account: Account | undefined, password: string): boolean {
  decoyHash ??= hashSecret(randomSecret());
  const ok = verifySecret(password, account?.hash ?? decoyHash);
  return ok && account?.hash !== undefined && account.hash !== null;
}

function invalidCredentials(ctx: SandboxContext): HttpError {
  return unauthorized(ctx, 'Unauthorized: Invalid credentials (wrong name or password)');
}

/** The TOTP step of the request's one-time code; 401 when it is missing, wrong, expired or used already. */
function checkOtp(ctx: SandboxContext, user: number, secret: string, otp: string | undefined, now: number): number {
  if (otp === undefined || otp.trim() === '') {
    throw unauthorized(ctx, "Unauthorized: this user needs a one-time code from the authenticator app (field 'otp')");
  }
  const step = matchTotp(secret, otp, now);
  if (step === undefined) throw unauthorized(ctx, 'Unauthorized: the one-time code is invalid or has expired');
  if (!isUnusedOtpStep(ctx, user, step)) throw unauthorized(ctx, 'Unauthorized: the one-time code was used already; wait for the next one');
  return step;
}

/** The user's account and, for a two-factor user, the step of the accepted code (recorded only once the login succeeds). */
function checkUser(ctx: SandboxContext, req: LoginRequest, now: number): { account: Account; otpStep?: number } {
  const account = findAccount(ctx, req.name);
  if (!passwordMatches(account, req.password) || !account) throw invalidCredentials(ctx);
  if (account.activity !== 0) throw unauthorized(ctx, 'Unauthorized: the user is not active');
  if (account.expdate !== null && account.expdate <= now) throw unauthorized(ctx, 'Unauthorized: the user has expired');
  return account.otpsecret ? { account, otpStep: checkOtp(ctx, account.ID, account.otpsecret, req.otp, now) } : { account };
}

function checkApplication(ctx: SandboxContext, appsecret: string | undefined): number | null {
  if (appsecret === undefined) return null;
  const owner = appsecret === '' ? undefined : applicationOfSecret(ctx, appsecret);
  if (!owner) throw unauthorized(ctx, 'Unauthorized: invalid application secret');
  if (!owner.active) throw unauthorized(ctx, 'Unauthorized: the application is not active');
  return owner.application;
}

/**
 * Logs a user in: 400 for a missing or malformed field, 401 for wrong
 * credentials, an inactive or expired user, a missing, wrong or already used
 * one-time code, or a wrong secret or inactive application. Issues the token,
 * replacing the one the same user and application held for the identifier,
 * and marks the one-time code used.
 */
export function login(ctx: SandboxContext, body: unknown): TokenRow {
  const now = nowSeconds(ctx);
  const req = parseLogin(body, now);
  const { account, otpStep } = checkUser(ctx, req, now);
  const application = checkApplication(ctx, req.appsecret);
  // Synchronous from the check above to here, so two logins cannot both use one code.
  if (otpStep !== undefined) useOtpStep(ctx, account.ID, otpStep);
  return issueToken(ctx, { user: account.ID, application, identifier: req.identifier, expdate: req.expdate });
}
