/**
 * The one check of a user's credentials, shared by `POST /auth/v1/login` and
 * the OAuth 2.0 interface (its sign-in pages and the password grant): the
 * password against its scrypt hash (a decoy hash for unknown names, so timing
 * does not tell which names exist), an active and unexpired user, and the
 * one-time code of a two-factor user, which works once. A failure is a
 * CredentialError naming its reason; its text never repeats a password or code.
 */
import type { SandboxContext } from '../context.js';
import { HttpError } from '../errors.js';
import { table } from '../schema.js';
import { isUnusedOtpStep, useOtpStep } from './otp-steps.js';
import { verifyOrDecoy } from './passwords.js';
import { matchTotp } from './totp.js';

/** Why credentials were refused. */
export type CredentialFailure = 'credentials' | 'inactive' | 'expired' | 'otp-missing' | 'otp-invalid' | 'otp-used';

const MESSAGES: Readonly<Record<CredentialFailure, string>> = {
  credentials: 'Unauthorized: Invalid credentials (wrong name or password)',
  inactive: 'Unauthorized: the user is not active',
  expired: 'Unauthorized: the user has expired',
  'otp-missing': "Unauthorized: this user needs a one-time code from the authenticator app (field 'otp')",
  'otp-invalid': 'Unauthorized: the one-time code is invalid or has expired',
  'otp-used': 'Unauthorized: the one-time code was used already; wait for the next one',
};

/** A 401 for refused credentials, with the reason for callers that word it their own way (the sign-in page). */
export class CredentialError extends HttpError {
  constructor(
    readonly reason: CredentialFailure,
    realm: string,
  ) {
    super(401, MESSAGES[reason], { 'WWW-Authenticate': `Bearer realm="${realm}"` });
    this.name = 'CredentialError';
  }
}

/** A user whose password matched. */
export interface Account {
  readonly ID: number;
  readonly name: string;
  readonly activity: number;
  readonly expdate: number | null;
  /** Base32 TOTP secret of a two-factor user, else null. */
  readonly otpsecret: string | null;
}

function findAccount(ctx: SandboxContext, name: string): (Account & { hash: string | null }) | undefined {
  const users = table(ctx.instance, 'users');
  const passwords = table(ctx.instance, '_passwords');
  return ctx.db
    .prepare(
      `SELECT u."ID" AS ID, u.name AS name, u.activity AS activity, u.expdate AS expdate, p.hash AS hash, p.otpsecret AS otpsecret
       FROM ${users} u LEFT JOIN ${passwords} p ON p.user = u."ID"
       WHERE lower(u.name) = lower(?) OR lower(u.email) = lower(?)
       ORDER BY (lower(u.name) = lower(?)) DESC, u."ID" LIMIT 1`,
    )
    .get(name, name, name) as (Account & { hash: string | null }) | undefined;
}

/**
 * The account of a user name (or e-mail) and password; CredentialError when
 * they do not match (the same for an unknown name), or the user is inactive
 * or expired. The one-time code of a two-factor user is checked apart (checkOtp).
 */
export function checkPassword(ctx: SandboxContext, name: string, password: string, now: number): Account {
  const found = findAccount(ctx, name);
  if (!verifyOrDecoy(password, found?.hash ?? undefined) || !found) throw new CredentialError('credentials', ctx.instance);
  if (found.activity !== 0) throw new CredentialError('inactive', ctx.instance);
  if (found.expdate !== null && found.expdate <= now) throw new CredentialError('expired', ctx.instance);
  const { hash: _hash, ...account } = found;
  return account;
}

/**
 * The TOTP step of a two-factor user's one-time code; CredentialError when it
 * is missing, wrong, expired or used already. The step is not recorded here:
 * call useOtpStep once the sign-in succeeds.
 */
export function checkOtp(ctx: SandboxContext, user: number, secret: string, otp: string | undefined, now: number): number {
  if (otp === undefined || otp.trim() === '') throw new CredentialError('otp-missing', ctx.instance);
  const step = matchTotp(secret, otp, now);
  if (step === undefined) throw new CredentialError('otp-invalid', ctx.instance);
  if (!isUnusedOtpStep(ctx, user, step)) throw new CredentialError('otp-used', ctx.instance);
  return step;
}

/** A user who passed the check, and the step of the code a two-factor user gave (see commitSignIn). */
export interface CheckedUser {
  readonly account: Account;
  readonly otpStep?: number;
}

/** Password, then (for a two-factor user) the one-time code: the whole check of a one-shot sign-in. */
export function checkUser(ctx: SandboxContext, req: { name: string; password: string; otp?: string | undefined }, now: number): CheckedUser {
  const account = checkPassword(ctx, req.name, req.password, now);
  return account.otpsecret ? { account, otpStep: checkOtp(ctx, account.ID, account.otpsecret, req.otp, now) } : { account };
}

/**
 * Marks the one-time code of a successful sign-in used. Call it synchronously
 * after the check, so two sign-ins cannot both use one code.
 */
export function commitSignIn(ctx: SandboxContext, checked: CheckedUser): void {
  if (checked.otpStep !== undefined) useOtpStep(ctx, checked.account.ID, checked.otpStep);
}
