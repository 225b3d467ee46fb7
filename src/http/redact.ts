/**
 * Keeps secrets out of logs and messages: the Authorization header and
 * secret query parameters.
 */

const SECRET_PARAMS = /^(token|access_token|refresh_token|id_token|password|passwd|appsecret|secret|client_secret|code|otp|api_?key|key|sig|signature|auth|session)$/i;
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

export const REDACTED = '[redacted]';

/** A URL with user info, secret query parameters and the fragment replaced. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    for (const key of [...u.searchParams.keys()]) if (SECRET_PARAMS.test(key)) u.searchParams.set(key, REDACTED);
    if (u.username || u.password) (u.username = REDACTED), (u.password = '');
    if (u.hash) u.hash = REDACTED;
    return u.toString();
  } catch {
    return url;
  }
}

/** Headers as "name: value" lines with credentials replaced (the scheme is kept). */
export function redactHeaders(headers: Readonly<Record<string, string>>): string[] {
  return Object.entries(headers).map(([k, v]) => {
    if (!SECRET_HEADERS.has(k.toLowerCase())) return `${k}: ${v}`;
    const scheme = /^(\w+)\s/.exec(v)?.[1];
    return `${k}: ${scheme ? `${scheme} ` : ''}${REDACTED}`;
  });
}

/**
 * Text that holds a request target, such as a server's log line
 * (`POST /demo/auth/v1/login?name=demo&password=… 200 3ms`), with the values
 * of secret query parameters replaced; everything else is left as it is.
 */
export function redactQueryValues(text: string): string {
  return text.replace(/([?&])([^=&#\s]+)=[^&#\s]*/g, (whole: string, sep: string, key: string) => {
    let name = key;
    try {
      name = decodeURIComponent(key.replace(/\+/g, ' '));
    } catch {
      // A malformed escape: judge the name as written.
    }
    return SECRET_PARAMS.test(name) ? `${sep}${key}=${REDACTED}` : whole;
  });
}
