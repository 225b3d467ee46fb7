/**
 * A stored OAuth sign-in as a bearer credential for the HTTP client: the
 * access token, renewed with the refresh token shortly before it expires and
 * once after a 401.
 *
 * Refresh tokens are single-use: two processes that refreshed with the same
 * one would leave one of them signed out (and the service may end the whole
 * grant). So a refresh takes a lock shared by every svc process on the
 * machine for that target (proper-lockfile: a lock directory whose holder's
 * crash is detected by its age), reads the stored grant again once it holds
 * the lock (another process may have refreshed meanwhile: then its tokens are
 * used, and nothing is sent), and stores the new pair before letting go.
 * A holder that is alive keeps its lock fresh; it is waited for as long as
 * its request may take (svc's request deadline, with a margin), never told
 * to be removed.
 *
 * A lock another process took over while this one still held it (this one
 * was suspended, or someone removed the lock directory) is no crash: the
 * refresh goes on, and a refusal then looks at the store once more, since
 * the other process may have renewed the tokens with the same refresh token.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { AuthError, SvcError } from '../../errors.js';
import type { BearerCredential, HttpClient } from '../../http/client.js';
import { oauthServer } from './endpoints.js';
import { oauthError, refusal } from './errors.js';
import { grantFrom, type OAuthGrant } from './grant.js';
import { oauthLibs } from './libs.js';

/** Where the grant is kept (the credential store's `<target>/token` entry). */
export interface GrantStore {
  read(): Promise<OAuthGrant | undefined>;
  write(grant: OAuthGrant): Promise<void>;
}

export interface OAuthSessionInput {
  /** A client for the OAuth interface (it carries no bearer token). */
  readonly http: HttpClient;
  readonly store: GrantStore;
  readonly grant: OAuthGrant;
  /** The client secret (SVC_CLIENT_SECRET or the store); undefined when there is none. */
  clientSecret(): Promise<string | undefined>;
  /** The lock file for this target (its directory is made when missing). */
  readonly lockFile: string;
  /** A lock untouched for this long is a crashed holder's (default LOCK_STALE_MS; proper-lockfile takes 2 s at least). */
  readonly lockStaleMs?: number;
  /** How long a lock another svc holds, and keeps fresh, is waited for (default LOCK_WAIT_MS). */
  readonly lockWaitMs?: number;
  /** Told once when another svc holds the lock, before waiting for it. */
  onLockWait?(): void;
  /**
   * Runs the part of a refresh that must not be cut short: from sending the
   * refresh token (the service then spends it) until the new pair is stored.
   * Where the process can hold Ctrl-C back until then, it does so here;
   * without it, the work just runs.
   */
  critical?<T>(work: () => Promise<T>): Promise<T>;
  now(): number;
  /** The target's name and the command that signs in again, for messages. */
  readonly label: string;
  readonly signIn: string;
}

/** Seconds before its expiry that an access token is renewed rather than sent. */
export const RENEW_BEFORE_SECONDS = 60;

/** A lock not touched for this long is a crashed holder's (proper-lockfile renews its own every half of it). */
export const LOCK_STALE_MS = 10_000;
/** svc's request deadline (--timeout) when none is given. */
const REQUEST_TIMEOUT_MS = 30_000;
/**
 * How long a lock held by a live svc (one that keeps it fresh) is waited for: the requests a holder makes
 * (a renewal one, a logout two) each up to the request deadline, and a margin for storing what it got.
 */
export const LOCK_WAIT_MS = 2 * REQUEST_TIMEOUT_MS + 30_000;
/** The pauses between looks at a held lock: from 10 ms, growing by a fifth, up to half a second. */
const LOCK_POLL = { minMs: 10, factor: 1.2, maxMs: 500 };

/**
 * Takes the lock that serialises what changes a target's sign-in (a refresh, a logout) across processes,
 * waiting for another holder (`onWait` is told once when it must); resolves to its release.
 *
 * A lock its holder keeps fresh is a live svc's: it is waited for up to `waitMs` (default LOCK_WAIT_MS),
 * and still held after that is exit 1, to try again later (removing it would let two renewals spend the
 * same refresh token). A crashed holder's lock goes stale and is taken over (proper-lockfile does that).
 */
export async function takeRefreshLock(lockFile: string, opts: { staleMs?: number; waitMs?: number; onWait?: () => void } = {}): Promise<() => Promise<void>> {
  const libs = await oauthLibs();
  // proper-lockfile's default onCompromised throws from a timer, which would end svc with a stack trace; the work goes on.
  const options = { realpath: false, stale: opts.staleMs ?? LOCK_STALE_MS, onCompromised: () => undefined, retries: 0 };
  const waitMs = opts.waitMs ?? LOCK_WAIT_MS;
  const deadline = Date.now() + waitMs;
  let pause = LOCK_POLL.minMs;
  for (let first = true; ; first = false) {
    try {
      if (first) mkdirSync(dirname(lockFile), { recursive: true, mode: 0o700 });
      return await libs.lockfile.lock(lockFile, options);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') {
        throw new AuthError(`could not take the refresh lock ${lockFile}.lock (${(err as Error).message}); if no other svc is running, remove it`);
      }
    }
    // Held, and fresh (a stale one would have been taken over): another svc is at work.
    if (first) opts.onWait?.();
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new SvcError(
        `another svc is still renewing (or signing out of) this sign-in after ${Math.round(waitMs / 1000)} s: it holds the lock ${lockFile}.lock and is running; try again once it has finished`,
      );
    }
    await new Promise<void>((resolve) => setTimeout(resolve, Math.min(pause, left)));
    pause = Math.min(pause * LOCK_POLL.factor, LOCK_POLL.maxMs);
  }
}

export function oauthCredential(input: OAuthSessionInput): BearerCredential & { grant(): OAuthGrant } {
  let grant = input.grant;
  const fresh = (g: OAuthGrant): boolean => g.expiresAt - input.now() / 1000 > RENEW_BEFORE_SECONDS;
  const ended = (why: string): AuthError => new AuthError(`the browser sign-in to ${input.label} has ended (${why}); sign in again with '${input.signIn}'`);

  /** The stored grant, when another process renewed it since `stale` was sent (and it is still good). */
  const renewedElsewhere = (latest: OAuthGrant | undefined, stale: string): boolean => latest !== undefined && latest.accessToken !== stale && fresh(latest);

  async function refresh(stale: string): Promise<string> {
    const libs = await oauthLibs();
    const release = await takeRefreshLock(input.lockFile, {
      ...(input.lockStaleMs === undefined ? {} : { staleMs: input.lockStaleMs }),
      ...(input.lockWaitMs === undefined ? {} : { waitMs: input.lockWaitMs }),
      ...(input.onLockWait ? { onWait: () => input.onLockWait?.() } : {}),
    });
    let released: Promise<void> | undefined;
    const releaseOnce = (): Promise<void> => (released ??= release().catch(() => undefined));
    try {
      const latest = await input.store.read();
      if (!latest) throw ended('its tokens are no longer stored here: signed out?');
      // Another process refreshed while this one waited: use its tokens.
      if (renewedElsewhere(latest, stale)) {
        grant = latest;
        return latest.accessToken;
      }
      const secret = await input.clientSecret();
      if (!secret) throw new AuthError(`the client secret of ${latest.clientId} is needed to renew the sign-in to ${input.label}: set SVC_CLIENT_SECRET, or sign in again with '${input.signIn}'`);
      const server = oauthServer(libs, input.http, latest.clientId);
      const work = async (): Promise<OAuthGrant> => {
        let next: OAuthGrant;
        try {
          const res = await libs.oauth.refreshTokenGrantRequest(server.as, server.client, libs.oauth.ClientSecretBasic(secret), latest.refreshToken, server.options);
          const answer = await libs.oauth.processRefreshTokenResponse(server.as, server.client, res);
          next = grantFrom(answer, latest.clientId, input.now(), latest);
        } catch (err) {
          // Refused: maybe another process spent the same refresh token first (it took the lock over), and stored what it got.
          if (refusal(libs, err) !== undefined) {
            const now = await input.store.read().catch(() => undefined);
            if (now && renewedElsewhere(now, stale) && now.refreshToken !== latest.refreshToken) return now;
          }
          throw oauthError(libs, err, `renewing the sign-in to ${input.label}`, `sign in again with '${input.signIn}'`);
        }
        await input.store.write(next);
        return next;
      };
      // The lock is let go inside the held part: a Ctrl-C held back is raised again only after it, so a
      // stopped svc never leaves its lock behind.
      const workThenRelease = async (): Promise<OAuthGrant> => {
        try {
          return await work();
        } finally {
          await releaseOnce();
        }
      };
      const next = await (input.critical ? input.critical(workThenRelease) : workThenRelease());
      grant = next;
      return next.accessToken;
    } finally {
      await releaseOnce();
    }
  }

  return {
    grant: () => grant,
    current: async () => (fresh(grant) ? grant.accessToken : refresh(grant.accessToken)),
    renew: async (rejected) => refresh(rejected),
  };
}
