/**
 * Who is calling: a bearer token resolved to its user, application, groups and
 * permissions. Permissions are granted to groups (`permissions` records) and
 * users belong to groups (`groups2users`); the `admin` permission makes an admin.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { nowSeconds, type SandboxContext, type Session } from '../context.js';
import { prepareCached } from '../data/query/statements.js';
import { HttpError } from '../errors.js';
import { table } from '../schema.js';
import { findToken } from './tokens.js';

/** The 401 every missing, invalid or expired credential gets. */
export function unauthorized(ctx: SandboxContext, message = 'Invalid or missing bearer token'): HttpError {
  return new HttpError(401, message, { 'WWW-Authenticate': `Bearer realm="${ctx.instance}"` });
}

/** The bearer token of a request, if any. */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  return m?.[1];
}

interface UserRow {
  ID: number;
  name: string;
  email: string;
  contact: number | null;
  nopublic: number;
  activity: number;
  expdate: number | null;
}

/** Groups and permissions of a user, in Maps (see Session); `admin` is held only through an `admin` permission row. */
export function grantsOf(ctx: SandboxContext, user: number): Pick<Session, 'groups' | 'permissions' | 'admin'> {
  const groups = new Map<number, boolean>();
  for (const g of prepareCached(ctx.db, `SELECT "group" AS g, writable FROM ${table(ctx.instance, 'groups2users')} WHERE "user" = ?`).all(user) as {
    g: number;
    writable: number;
  }[]) {
    groups.set(g.g, g.writable === 1);
  }
  const permissions = new Map<string, boolean>();
  const ids = [...groups.keys()];
  if (ids.length > 0) {
    const rows = prepareCached(
      ctx.db,
      `SELECT identifier, writable FROM ${table(ctx.instance, 'permissions')} WHERE identifier IS NOT NULL AND "group" IN (${ids.map(() => '?').join(', ')})`,
    ).all(...ids) as { identifier: string; writable: number }[];
    for (const p of rows) permissions.set(p.identifier, permissions.get(p.identifier) === true || p.writable === 1);
  }
  return { groups, permissions, admin: permissions.has('admin') };
}

/** The session a token stands for, or undefined when it is unknown, expired or its user or application is inactive. */
export function sessionFromToken(ctx: SandboxContext, token: string): Session | undefined {
  const row = findToken(ctx, token);
  const now = nowSeconds(ctx);
  if (!row || (row.expdate !== null && row.expdate <= now)) return undefined;
  const user = prepareCached(ctx.db, `SELECT "ID", name, email, contact, nopublic, activity, expdate FROM ${table(ctx.instance, 'users')} WHERE "ID" = ?`).get(row.user) as UserRow | undefined;
  if (!user || user.activity !== 0 || (user.expdate !== null && user.expdate <= now)) return undefined;
  if (row.application !== null) {
    const app = prepareCached(ctx.db, `SELECT activity FROM ${table(ctx.instance, 'applications')} WHERE "ID" = ?`).get(row.application) as
      | { activity: number }
      | undefined;
    if (!app || app.activity !== 0) return undefined;
  }
  return {
    token: row.token,
    user: user.ID,
    name: user.name,
    email: user.email,
    contact: user.contact,
    nopublic: user.nopublic === 1,
    application: row.application,
    identifier: row.identifier,
    expdate: row.expdate,
    ...grantsOf(ctx, user.ID),
  };
}

/**
 * The caller's session, or a 401 with WWW-Authenticate. The data interface
 * accepts only application-specific tokens (`appSpecific`).
 */
export function requireSession(ctx: SandboxContext, headers: IncomingHttpHeaders, opts: { appSpecific: boolean }): Session {
  const token = bearerToken(headers);
  if (!token) throw unauthorized(ctx, 'Missing bearer token');
  const session = sessionFromToken(ctx, token);
  if (!session) throw unauthorized(ctx, 'Invalid bearer token');
  if (opts.appSpecific && session.application === null) {
    throw unauthorized(ctx, 'Invalid bearer token: the data interface needs an application-specific token (log in with an appsecret)');
  }
  return session;
}
