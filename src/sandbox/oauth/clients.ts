/**
 * OAuth clients are applications: `client_id` is an application's
 * `identifier`, the client secret is its application secret (`_appsecrets`),
 * and its redirect URIs are its `callbackurls`. A client authenticates with
 * HTTP Basic (RFC 6749 section 2.3.1: both parts form-encoded) or with
 * `client_id` and `client_secret` in the body, never both at once.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { verifyOrDecoy } from '../auth/passwords.js';
import type { SandboxContext } from '../context.js';
import { prepareCached } from '../data/query/statements.js';
import { table } from '../schema.js';
import { MAX_PARAM, type Params } from './params.js';
import { oauthError } from './replies.js';

/** An application as the OAuth interface sees it. */
export interface OAuthClient {
  readonly id: number;
  readonly identifier: string;
  readonly name: string;
  readonly active: boolean;
  /** Registered redirect URIs. */
  readonly callbackurls: readonly string[];
}

/** The form of an application identifier (applications.identifier). */
export const CLIENT_ID = /^[a-zA-Z0-9]([a-zA-Z0-9_.-]*[a-zA-Z0-9])?$/;

/**
 * The strings of a callbackurls value as stored: a JSON array, or a JSON
 * string holding one (the field takes both); anything else lists none.
 */
export function parseCallbackUrls(stored: string | null): string[] {
  let value: unknown = stored;
  for (let i = 0; i < 2 && typeof value === 'string'; i++) {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return [];
    }
  }
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The application whose identifier is `clientId`, active or not; undefined when there is none. */
export function findClient(ctx: SandboxContext, clientId: string): OAuthClient | undefined {
  if (!CLIENT_ID.test(clientId)) return undefined;
  const row = prepareCached(ctx.db, `SELECT "ID", identifier, name, activity, callbackurls FROM ${table(ctx.instance, 'applications')} WHERE identifier = ?`).get(
    clientId,
  ) as { ID: number; identifier: string; name: string; activity: number; callbackurls: string | null } | undefined;
  if (!row) return undefined;
  return { id: row.ID, identifier: row.identifier, name: row.name, active: row.activity === 0, callbackurls: parseCallbackUrls(row.callbackurls) };
}

/** The id and secret of an `Authorization: Basic` header, each form-decoded; undefined without one. */
function basicCredentials(ctx: SandboxContext, headers: IncomingHttpHeaders): { id: string; secret: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/]*={0,2})\s*$/i.exec(headers.authorization ?? '');
  if (!m) {
    if (!/^Basic(\s|$)/i.test(headers.authorization ?? '')) return undefined;
    throw oauthError(ctx, 'invalid_client', 'Unauthorized: the Basic credentials must be base64 of client_id:client_secret');
  }
  const decoded = Buffer.from(m[1] ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) {
    throw oauthError(ctx, 'invalid_client', 'Unauthorized: the Basic credentials must be base64 of client_id:client_secret');
  }
  const decode = (part: string): string => {
    try {
      return decodeURIComponent(part.replace(/\+/g, ' '));
    } catch {
      throw oauthError(ctx, 'invalid_client', 'Unauthorized: malformed percent-escape in the Basic credentials; encode client_id and client_secret as form values');
    }
  };
  return { id: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)) };
}

function secretHash(ctx: SandboxContext, application: number): string | undefined {
  const row = prepareCached(ctx.db, `SELECT hash FROM ${table(ctx.instance, '_appsecrets')} WHERE application = ?`).get(application) as { hash: string } | undefined;
  return row?.hash;
}

/**
 * The client a token, revoke or introspect request authenticates as: 401
 * invalid_client for a missing, unknown or inactive client or a wrong secret
 * (the secret is checked even for an unknown client, so timing tells
 * nothing); 400 invalid_request when both Basic and body credentials are sent.
 */
export function authenticateClient(ctx: SandboxContext, headers: IncomingHttpHeaders, params: Params): OAuthClient {
  const basic = basicCredentials(ctx, headers);
  const bodyId = params.get('client_id');
  const bodySecret = params.get('client_secret');
  if (basic && bodySecret !== undefined) {
    throw oauthError(ctx, 'invalid_request', 'send the client credentials once: in the Authorization header or in the body, not both');
  }
  if (basic && bodyId !== undefined && bodyId !== basic.id) {
    throw oauthError(ctx, 'invalid_request', "'client_id' in the body differs from the client of the Authorization header");
  }
  const id = basic?.id ?? bodyId;
  const secret = basic?.secret ?? bodySecret;
  if (id === undefined || secret === undefined) {
    throw oauthError(ctx, 'invalid_client', 'Unauthorized: client authentication needed: HTTP Basic with client_id:client_secret, or both in the body');
  }
  const client = findClient(ctx, id);
  const matches = verifyOrDecoy(secret.slice(0, MAX_PARAM), client ? secretHash(ctx, client.id) : undefined) && secret.length <= MAX_PARAM;
  if (!client || !matches) throw oauthError(ctx, 'invalid_client', 'Unauthorized: unknown client application or wrong client secret');
  if (!client.active) throw oauthError(ctx, 'invalid_client', 'Unauthorized: the client application is not active');
  return client;
}
