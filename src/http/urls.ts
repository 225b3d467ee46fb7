/**
 * Instance URLs and the roots of the three interfaces:
 * `https://erp.example.com/acme` → `…/acme/api/v1`, `…/acme/auth/v1`, `…/acme/oauth2/v1`.
 * HTTPS is the only scheme for real instances; plain HTTP only on loopback (the sandbox).
 */
import { UsageError } from '../errors.js';
import { shown } from '../util/shown.js';

export interface InstanceRoots {
  /** The instance URL as given, without a trailing slash. */
  readonly instance: string;
  readonly api: string;
  readonly auth: string;
  readonly oauth2: string;
}

/** Whether a host name is this machine: 127.0.0.0/8, ::1 or localhost. */
export function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** Parses and checks an instance URL; throws a usage error naming the fix. */
export function parseInstanceUrl(raw: string): InstanceRoots {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`invalid instance URL '${shown(raw)}'; give one like https://erp.example.com/acme`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`instance URL '${shown(raw)}' must start with https://`);
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw new UsageError(`refusing plain http:// for ${shown(url.host)}: the service is HTTPS only (http is allowed for a local sandbox on 127.0.0.1); use https://${shown(`${url.host}${url.pathname}`)}`);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new UsageError(`instance URL '${shown(`${url.origin}${url.pathname}`)}' must not carry a query, fragment or credentials`);
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (!path) throw new UsageError(`instance URL '${shown(raw)}' needs the instance path, e.g. ${shown(url.origin)}/acme`);
  if (/\/(api|auth|oauth2)\/v1$/.test(path)) {
    throw new UsageError(`give the instance URL, not an interface root: ${shown(`${url.origin}${path.replace(/\/(api|auth|oauth2)\/v1$/, '')}`)}`);
  }
  const instance = `${url.origin}${path}`;
  return { instance, api: `${instance}/api/v1`, auth: `${instance}/auth/v1`, oauth2: `${instance}/oauth2/v1` };
}
