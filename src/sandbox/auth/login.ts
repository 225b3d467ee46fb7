/**
 * `POST /login`: checks a user's name (or e-mail) and password, the one-time
 * code of a two-factor user (credentials.ts, shared with the OAuth interface)
 * and an optional application secret, then issues a bearer token for the
 * client's identifier. Error texts never repeat what the client sent for a
 * password, secret or code.
 */
import { nowSeconds, type SandboxContext } from '../context.js';
import { badRequest } from '../errors.js';
import { applicationOfSecret } from './app-secrets.js';
import { checkUser, commitSignIn } from './credentials.js';
import { unauthorized } from './session.js';
import { issueToken, type TokenRow } from './tokens.js';

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
  const checked = checkUser(ctx, req, now);
  const application = checkApplication(ctx, req.appsecret);
  // Synchronous from the check above to here, so two logins cannot both use one code.
  commitSignIn(ctx, checked);
  return issueToken(ctx, { user: checked.account.ID, application, identifier: req.identifier, expdate: req.expdate });
}
