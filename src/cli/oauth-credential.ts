/**
 * The credential of a stored browser sign-in (`svc login --web`): its grant
 * read from and written back to the store it came from, the client secret
 * from SVC_CLIENT_SECRET or that store, and a per-target lock file in the
 * config directory (see src/auth/oauth/session.ts).
 *
 * The part of a refresh that must not be cut short (the service has spent the
 * old refresh token, the new pair is on its way to the store) runs with
 * SIGINT and SIGTERM held back when the process control can do that
 * (`holdSignals` of ProcessControl, which main.ts provides).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { ResolvedToken } from '../auth/chain.js';
import { parseGrant, serializeGrant, type OAuthGrant } from '../auth/oauth/grant.js';
import { LOCK_WAIT_MS, oauthCredential } from '../auth/oauth/session.js';
import { accountName, type CredentialStore } from '../auth/store.js';
import type { BearerCredential, HttpClient } from '../http/client.js';
import type { Deps } from './deps.js';

/** The part of a connection's target this module needs (connection.ts's Target). */
interface Target {
  readonly profile?: { readonly name: string } | undefined;
  readonly instanceUrl: string;
  readonly key: string;
  readonly label: string;
}

/** The login command that starts a new browser sign-in for a target. */
export function webLoginCommand(target: Target): string {
  return target.profile ? `svc login --web --profile ${target.profile.name}` : `svc login --web --url ${target.instanceUrl}`;
}

/** The lock file that serialises refreshes of one target's sign-in, across processes. */
export function refreshLockFile(configDir: string, key: string): string {
  return join(configDir, 'locks', `oauth-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`);
}

/** The bearer credential of a resolved token that holds an OAuth grant; `openStore` opens the store it came from. */
export function oauthCredentialFor(
  deps: Deps,
  target: Target,
  token: ResolvedToken & { oauth: NonNullable<ResolvedToken['oauth']> },
  http: HttpClient,
  openStore: () => Promise<CredentialStore>,
  requestTimeoutMs: number,
): BearerCredential & { grant(): OAuthGrant } {
  const grant = token.oauth;
  const processes = deps.processes;
  const hold = processes?.holdSignals?.bind(processes);
  let store: CredentialStore | undefined;
  const opened = async (): Promise<CredentialStore> => (store ??= await openStore());
  return oauthCredential({
    http,
    grant,
    store: {
      read: async () => {
        const value = await (await opened()).get(accountName(target.key, 'token'));
        return value === undefined ? undefined : parseGrant(value);
      },
      write: async (g) => (await opened()).set(accountName(target.key, 'token'), serializeGrant(g)),
    },
    clientSecret: async () => deps.env.SVC_CLIENT_SECRET || (await (await opened()).get(accountName(target.key, 'clientsecret'))),
    lockFile: refreshLockFile(deps.configDir, target.key),
    // Another svc renewing makes up to two requests under its own deadline: with a longer --timeout here, wait longer.
    lockWaitMs: Math.max(LOCK_WAIT_MS, 2 * requestTimeoutMs + 30_000),
    ...(deps.stderr.isTTY ? { onLockWait: () => void deps.stderr.write('svc: another svc is renewing this sign-in; waiting for it\n') } : {}),
    ...(hold
      ? {
          critical: <T,>(work: () => Promise<T>): Promise<T> =>
            hold(work, (signal) => void deps.stderr.write(`svc: ${signal}: storing the renewed tokens first (again to stop at once)\n`)),
        }
      : {}),
    now: () => deps.now(),
    label: target.label,
    signIn: webLoginCommand(target),
  });
}
