/**
 * What every sandbox handler gets: the database, the instance, the clock,
 * the parsed request and (on the data interface) the caller's session.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Db } from './db.js';

/** The signed-in caller, resolved from an application-specific bearer token. */
export interface Session {
  readonly token: string;
  readonly user: number;
  readonly name: string;
  readonly email: string;
  readonly contact: number | null;
  readonly nopublic: boolean;
  readonly application: number | null;
  readonly identifier: string;
  readonly expdate: number | null;
  readonly admin: boolean;
  /**
   * Group ID → membership is writable. Maps, not objects, so that no lookup
   * can reach Object.prototype (a polluted prototype grants nothing).
   */
  readonly groups: ReadonlyMap<number, boolean>;
  /** Permission name → writable form held. */
  readonly permissions: ReadonlyMap<string, boolean>;
}

export interface RequestInfo {
  readonly method: string;
  /** Path segments after `/<instance>/<interface>/v1/`. */
  readonly segments: readonly string[];
  readonly query: URLSearchParams;
  /** The query string as received, without '?' (for strict parsing: malformed escapes, repeated names). */
  readonly rawQuery?: string;
  readonly headers: IncomingHttpHeaders;
  /** Parsed body (JSON or form); undefined when there is none. */
  readonly body: unknown;
}

export interface SandboxContext {
  readonly db: Db;
  readonly instance: string;
  /** Milliseconds since the epoch (injectable for tests). */
  now(): number;
  /** Pattern matching one query may spend, in ms; LIMITS.patternBudgetMs unless a test sets less. */
  readonly patternBudgetMs?: number;
  /** Lifetime of OAuth access tokens in seconds; DEFAULT_ACCESS_TTL_SECONDS (oauth/grants.ts) when unset. */
  readonly oauthAccessTtlSeconds?: number;
  /** The sandbox serves HTTPS (its session cookie is then Secure). */
  readonly https?: boolean;
}

/** Seconds since the epoch from a context's clock. */
export function nowSeconds(ctx: SandboxContext): number {
  return Math.floor(ctx.now() / 1000);
}
