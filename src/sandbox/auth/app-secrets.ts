/**
 * Application secrets: stored hashed in the instance's `_appsecrets` table,
 * one per application. A login's `appsecret` names its application by
 * matching one of them; regenerating a secret leaves issued tokens alone.
 */
import type { SandboxContext } from '../context.js';
import { notFound } from '../errors.js';
import { table } from '../schema.js';
import { hashSecret, randomSecret, verifySecret } from './passwords.js';

/** The application an application secret belongs to, and whether it is active. */
export interface SecretOwner {
  readonly application: number;
  readonly active: boolean;
}

/**
 * The application whose stored secret matches `secret`, or undefined when
 * none does (or its application record is gone).
 */
export function applicationOfSecret(ctx: SandboxContext, secret: string): SecretOwner | undefined {
  const rows = ctx.db.prepare(`SELECT application, hash FROM ${table(ctx.instance, '_appsecrets')} ORDER BY application`).all() as {
    application: number;
    hash: string;
  }[];
  const match = rows.find((r) => verifySecret(secret, r.hash));
  if (!match) return undefined;
  const app = ctx.db.prepare(`SELECT activity FROM ${table(ctx.instance, 'applications')} WHERE "ID" = ?`).get(match.application) as
    | { activity: number }
    | undefined;
  if (!app) return undefined;
  return { application: match.application, active: app.activity === 0 };
}

/**
 * Gives an application a new random secret and returns it in clear (the only
 * time it is shown). Only its hash is kept, so the old secret stops working
 * for login; tokens issued with the old secret stay valid.
 * Throws a 404 HttpError when the application does not exist.
 */
export function regenerateAppSecret(ctx: SandboxContext, applicationId: number): string {
  const app = ctx.db.prepare(`SELECT "ID" FROM ${table(ctx.instance, 'applications')} WHERE "ID" = ?`).get(applicationId);
  if (!app) throw notFound(`Not Found: no application ${applicationId}`);
  const secret = randomSecret(24);
  ctx.db
    .prepare(
      `INSERT INTO ${table(ctx.instance, '_appsecrets')} (application, hash) VALUES (?, ?) ON CONFLICT(application) DO UPDATE SET hash = excluded.hash`,
    )
    .run(applicationId, hashSecret(secret));
  return secret;
}
