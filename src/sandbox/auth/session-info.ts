/**
 * The session info `GET /` answers with: who the token belongs to, their
 * groups and permissions, personal settings, and how they authenticated.
 */
import type { SandboxContext, Session } from '../context.js';
import { table } from '../schema.js';

/** Language reported for every sandbox user (the service knows de_DE, en_US, es_ES). */
export const SESSION_LANG = 'en_US';

/** The JSON body of `GET /` for a session. */
export interface SessionInfo {
  readonly user: number;
  readonly contact: number | null;
  readonly name: string;
  readonly email: string;
  readonly admin: boolean;
  readonly nopublic: boolean;
  readonly apionly: boolean;
  readonly groups: Readonly<Record<string, boolean>>;
  readonly permissions: Readonly<Record<string, boolean>>;
  readonly settings: Readonly<Record<string, unknown>>;
  readonly auth: { readonly user: number; readonly application: number | null; readonly lang: string };
}

/** Builds the session info of a resolved session; the sandbox keeps no personal settings, so they are empty. */
export function toSessionInfo(ctx: SandboxContext, session: Session): SessionInfo {
  const row = ctx.db.prepare(`SELECT apionly FROM ${table(ctx.instance, 'users')} WHERE "ID" = ?`).get(session.user) as
    | { apionly: number }
    | undefined;
  return {
    user: session.user,
    contact: session.contact,
    name: session.name,
    email: session.email,
    admin: session.admin,
    nopublic: session.nopublic,
    apionly: row?.apionly === 1,
    groups: Object.fromEntries([...session.groups].map(([id, writable]) => [String(id), writable])),
    permissions: Object.fromEntries(session.permissions),
    settings: {},
    auth: { user: session.user, application: session.application, lang: SESSION_LANG },
  };
}
