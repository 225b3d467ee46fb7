/**
 * Which redirect URIs a client may name: HTTPS, or plain HTTP on the loopback
 * interface (127.0.0.1, localhost, [::1]); no fragment and no user info
 * (RFC 6749 section 3.1.2); and registered in the application's callbackurls,
 * compared as strings, except that a loopback URI matches a registered one
 * with the same host, path and query on any port (RFC 8252 section 7.3), as a
 * native app listens on whatever port is free.
 */
import type { OAuthClient } from './clients.js';

/** Host names of the loopback interface, as URL.hostname spells them. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether a URL is plain HTTP on the loopback interface. */
export function isLoopbackUrl(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname.toLowerCase());
}

function parse(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** Whether `given` is the registered URI, or a loopback URI that differs from it in the port alone. */
function matches(registered: string, given: string, url: URL): boolean {
  if (registered === given) return true;
  const reg = parse(registered);
  if (!reg || !isLoopbackUrl(reg) || !isLoopbackUrl(url)) return false;
  return reg.hostname.toLowerCase() === url.hostname.toLowerCase() && reg.pathname === url.pathname && reg.search === url.search && !reg.username && !reg.password;
}

/**
 * What is wrong with a redirect URI for this client, as a sentence for the
 * error page; undefined when the client may be redirected there.
 */
export function redirectUriProblem(client: OAuthClient, uri: string): string | undefined {
  const url = parse(uri);
  if (!url || !/^https?:\/\//i.test(uri)) return 'the redirect URI is not an absolute http(s) URL';
  if (uri.includes('#')) return 'the redirect URI must not carry a fragment (#…)';
  if (url.username || url.password) return 'the redirect URI must not carry a user name or password';
  if (url.protocol !== 'https:' && !isLoopbackUrl(url)) return 'the redirect URI must use HTTPS, unless it is on 127.0.0.1 or localhost';
  if (!client.callbackurls.some((r) => matches(r, uri, url))) return 'the redirect URI is not registered for this application (callbackurls)';
  return undefined;
}
