/**
 * Authorization codes: 40 hex characters, for one client, user and redirect
 * URI, with the PKCE challenge when one was given (S256 only), valid for a
 * few minutes and once. A used code is kept until it expires, with the grant
 * it started, so that its reuse revokes that grant (RFC 6749 section 4.1.2).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { nowSeconds, type SandboxContext } from '../context.js';
import { prepareCached } from '../data/query/statements.js';
import { table } from '../schema.js';

/** How long a code may wait for its exchange. */
export const CODE_TTL_SECONDS = 300;

/** A code as stored. */
export interface CodeRow {
  readonly code: string;
  readonly application: number;
  readonly user: number;
  readonly redirecturi: string;
  /** BASE64URL(SHA-256(code_verifier)), when the request carried a challenge. */
  readonly challenge: string | null;
  readonly expires: number;
  /** When it was exchanged (or an exchange was tried), else null. */
  readonly used: number | null;
  /** The grant its exchange started. */
  readonly grantid: string | null;
}

/** Issues a code for an approved authorization request. Also drops codes long expired. */
export function issueCode(ctx: SandboxContext, input: { application: number; user: number; redirectUri: string; challenge?: string | undefined }): string {
  const now = nowSeconds(ctx);
  const code = randomBytes(20).toString('hex');
  const t = table(ctx.instance, '_oauthcodes');
  prepareCached(ctx.db, `DELETE FROM ${t} WHERE expires <= ?`).run(now - CODE_TTL_SECONDS);
  prepareCached(ctx.db, `INSERT INTO ${t} (code, application, user, redirecturi, challenge, expires) VALUES (?, ?, ?, ?, ?, ?)`).run(
    code,
    input.application,
    input.user,
    input.redirectUri,
    input.challenge ?? null,
    now + CODE_TTL_SECONDS,
  );
  return code;
}

/** The stored code, used or not, expired or not. */
export function findCode(ctx: SandboxContext, code: string): CodeRow | undefined {
  return prepareCached(
    ctx.db,
    `SELECT code, application, user, redirecturi, challenge, expires, used, grantid FROM ${table(ctx.instance, '_oauthcodes')} WHERE code = ?`,
  ).get(code) as CodeRow | undefined;
}

/** Marks a code used: it works at most once, whatever the outcome of its exchange. */
export function markCodeUsed(ctx: SandboxContext, code: string): void {
  prepareCached(ctx.db, `UPDATE ${table(ctx.instance, '_oauthcodes')} SET used = ? WHERE code = ?`).run(nowSeconds(ctx), code);
}

/** Records the grant a code's exchange started. */
export function recordGrant(ctx: SandboxContext, code: string, grantid: string): void {
  prepareCached(ctx.db, `UPDATE ${table(ctx.instance, '_oauthcodes')} SET grantid = ? WHERE code = ?`).run(grantid, code);
}

/** The S256 challenge of a code verifier (RFC 7636 section 4.2). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** The form of a code verifier (RFC 7636 section 4.1) and of an S256 challenge. */
export const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
export const S256_CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

/** Whether a verifier answers the stored challenge (in constant time). */
export function verifierMatches(challenge: string, verifier: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  const a = Buffer.from(s256(verifier));
  const b = Buffer.from(challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}
