/**
 * `GET /userinfo` (OpenID Connect Core section 5.3, with the service's
 * extensions): who the bearer token or the SERVICEID session belongs to. The
 * standard claims come from the user and, when it has one, its contact;
 * claims the sandbox has no value for are left out, as OIDC allows.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { bearerToken, sessionFromToken } from '../auth/session.js';
import { SESSION_LANG } from '../auth/session-info.js';
import { nowSeconds, type RequestInfo, type SandboxContext } from '../context.js';
import { prepareCached } from '../data/query/statements.js';
import { HttpError } from '../errors.js';
import { json, type Reply } from '../http/respond.js';
import { table } from '../schema.js';
import { findWebSession } from './web-sessions.js';

/** Time zone reported for every sandbox user (the instance's, see GET /api/v1/config). */
const ZONEINFO = 'Europe/Berlin';

interface UserRow {
  ID: number;
  name: string;
  email: string;
  nopublic: number;
  apionly: number;
  lastmodified: number;
  activity: number;
  expdate: number | null;
  firstname: string | null;
  lastname: string | null;
  phone: string | null;
  birthdate: number | null;
  address: string | null;
  city: string | null;
  region: string | null;
  postalcode: string | null;
  country: string | null;
}

/** The signed-in user of a bearer token, else of the session cookie; 401 with a Bearer challenge when neither works. */
function callerOf(ctx: SandboxContext, headers: IncomingHttpHeaders): number {
  const token = bearerToken(headers);
  if (token) {
    const session = sessionFromToken(ctx, token);
    if (session) return session.user;
    throw new HttpError(401, 'Unauthorized: Invalid bearer token', { 'WWW-Authenticate': `Bearer realm="${ctx.instance}", error="invalid_token"` });
  }
  const user = findWebSession(ctx, headers)?.user;
  if (user !== null && user !== undefined) return user;
  throw new HttpError(401, 'Unauthorized: send a bearer access token, or sign in for a session cookie', { 'WWW-Authenticate': `Bearer realm="${ctx.instance}"` });
}

function userRow(ctx: SandboxContext, user: number): UserRow | undefined {
  return prepareCached(
    ctx.db,
    `SELECT u."ID" AS ID, u.name AS name, u.email AS email, u.nopublic AS nopublic, u.apionly AS apionly, u.lastmodified AS lastmodified,
       u.activity AS activity, u.expdate AS expdate, c.firstname AS firstname, c.lastname AS lastname, c.phone AS phone,
       c.birthdate AS birthdate, c.address AS address, c.city AS city, c.region AS region, c.postalcode AS postalcode, c.country AS country
     FROM ${table(ctx.instance, 'users')} u LEFT JOIN ${table(ctx.instance, 'contacts')} c ON c."ID" = u.contact WHERE u."ID" = ?`,
  ).get(user) as UserRow | undefined;
}

/** Members with a non-empty value only. */
function present(members: Record<string, string | null | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(members).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''));
}

function groupsOf(ctx: SandboxContext, user: number): { id: number; name: string; writable: boolean }[] {
  const rows = prepareCached(
    ctx.db,
    `SELECT g."ID" AS id, g.name AS name, m.writable AS writable FROM ${table(ctx.instance, 'groups2users')} m
     JOIN ${table(ctx.instance, 'groups')} g ON g."ID" = m."group" WHERE m."user" = ? ORDER BY g."ID"`,
  ).all(user) as { id: number; name: string; writable: number }[];
  return rows.map((r) => ({ id: r.id, name: r.name, writable: r.writable === 1 }));
}

type Permission = { identifier: string; writable: boolean } | { fork: number; writable: boolean } | { application: number; writable: boolean };

/** The permissions of the user's groups: by name, by fork or by application; writable when any group holds them writable. */
function permissionsOf(ctx: SandboxContext, user: number): Permission[] {
  const rows = prepareCached(
    ctx.db,
    `SELECT p.identifier AS identifier, p.fork AS fork, p.application AS application, max(p.writable) AS writable
     FROM ${table(ctx.instance, 'permissions')} p JOIN ${table(ctx.instance, 'groups2users')} m ON m."group" = p."group"
     WHERE m."user" = ? GROUP BY p.identifier, p.fork, p.application ORDER BY p.identifier, p.fork, p.application`,
  ).all(user) as { identifier: string | null; fork: number | null; application: number | null; writable: number }[];
  return rows.flatMap((r): Permission[] => {
    const writable = r.writable === 1;
    if (r.identifier !== null) return [{ identifier: r.identifier, writable }];
    if (r.fork !== null) return [{ fork: r.fork, writable }];
    return r.application !== null ? [{ application: r.application, writable }] : [];
  });
}

/** The user's claims, as oauth2.json lists them. */
function claims(ctx: SandboxContext, row: UserRow): Record<string, unknown> {
  const realName = [row.firstname, row.lastname].filter((p): p is string => !!p).join(' ');
  const address = present({ street_address: row.address, locality: row.city, region: row.region, postal_code: row.postalcode, country: row.country });
  return {
    sub: String(row.ID),
    name: realName || row.name,
    preferred_username: row.name,
    email: row.email,
    zoneinfo: ZONEINFO,
    locale: SESSION_LANG.replace('_', '-'),
    nopublic: row.nopublic === 1,
    apionly: row.apionly === 1,
    updated_at: row.lastmodified,
    ...present({ given_name: row.firstname, family_name: row.lastname, phone_number: row.phone }),
    ...(row.birthdate !== null ? { birthdate: new Date(row.birthdate * 1000).toISOString().slice(0, 10) } : {}),
    ...(Object.keys(address).length > 0 ? { address } : {}),
    groups: groupsOf(ctx, row.ID),
    permissions: permissionsOf(ctx, row.ID),
  };
}

/** `GET /userinfo`: 200 with the claims, 401 without a valid token or session. */
export function userinfo(ctx: SandboxContext, info: RequestInfo): Reply {
  const user = callerOf(ctx, info.headers);
  const row = userRow(ctx, user);
  if (!row || row.activity !== 0 || (row.expdate !== null && row.expdate <= nowSeconds(ctx))) {
    throw new HttpError(401, 'Unauthorized: the user is no longer active', { 'WWW-Authenticate': `Bearer realm="${ctx.instance}"` });
  }
  return json(claims(ctx, row), 200, { 'Cache-Control': 'no-store' });
}
