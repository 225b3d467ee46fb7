/** `svc login`'s typed options and how its flags become them (pure; tests check it without a server). */
import { bool, str } from '../../../cli/command.js';
import { UsageError } from '../../../errors.js';
import { MAX_TIMER_MS, parseDuration } from '../../../util/duration.js';
import { shown } from '../../../util/shown.js';

export interface LoginOptions {
  /** --user; asked on a terminal when absent. */
  readonly user?: string;
  readonly passwordStdin: boolean;
  readonly appsecretStdin: boolean;
  /** --otp; else SVC_OTP, else asked on a terminal when the account needs one. */
  readonly otp?: string;
  /** --expires, in milliseconds; absent: the service decides. */
  readonly expiresMs?: number;
  readonly insecureStorage: boolean;
  /** --web (or --no-browser): sign in with a browser, OAuth 2.0; absent for a password login. */
  readonly web?: WebLoginOptions;
}

/** The options of a browser sign-in (`svc login --web`). */
export interface WebLoginOptions {
  /** Open a browser (false with --no-browser: print the URL, and read a pasted redirect URL on stdin). */
  readonly browser: boolean;
  /** --client-id; else the profile's. */
  readonly clientId?: string;
  readonly clientSecretStdin: boolean;
  /** How long to wait for the browser, in milliseconds (--wait, default 5 minutes). */
  readonly waitMs: number;
}

/** How long `svc login --web` waits for the browser unless --wait says otherwise. */
export const DEFAULT_WEB_WAIT_MS = 5 * 60_000;

/** The shortest --expires: a token that lives less is gone before it is of use (and a second or less is past when it arrives). */
export const MIN_EXPIRES_MS = 60_000;

/** --expires: from 1 minute to parseDuration's most (ten years). */
function expiresOf(text: string): number {
  const ms = parseDuration(text, '--expires');
  if (ms < MIN_EXPIRES_MS) throw new UsageError(`--expires '${shown(text, 40)}' is too short; a token lives at least 1m (e.g. --expires 12h or 30d)`);
  return ms;
}

/** Flags → LoginOptions; both secrets from stdin, or a bad --expires, is a UsageError. */
export function toLoginOptions(flags: Readonly<Record<string, unknown>>): LoginOptions {
  const passwordStdin = bool(flags, 'passwordStdin');
  const appsecretStdin = bool(flags, 'appsecretStdin');
  if (passwordStdin && appsecretStdin) {
    throw new UsageError('--password-stdin and --appsecret-stdin cannot both read stdin; give the secret in SVC_APPSECRET');
  }
  const browser = flags.browser !== false;
  const webOnly = (['clientId', 'clientSecretStdin', 'wait'] as const).filter((k) => flags[k] !== undefined && flags[k] !== false);
  const web = bool(flags, 'web') || !browser;
  if (!web && webOnly.length > 0) {
    const flag = { clientId: '--client-id', clientSecretStdin: '--client-secret-stdin', wait: '--wait' }[webOnly[0]!];
    throw new UsageError(`${flag} is for a browser sign-in: add --web`);
  }
  if (web) {
    const clash = (['user', 'passwordStdin', 'appsecretStdin', 'otp', 'expires'] as const).find((k) => flags[k] !== undefined && flags[k] !== false);
    if (clash) {
      const flag = { user: '--user', passwordStdin: '--password-stdin', appsecretStdin: '--appsecret-stdin', otp: '--otp', expires: '--expires' }[clash];
      throw new UsageError(`${flag} is for a password login; a browser sign-in (--web) asks for the user and password in the browser`);
    }
    if (bool(flags, 'clientSecretStdin') && !browser) {
      throw new UsageError('--client-secret-stdin reads standard input to its end, where --no-browser takes the pasted redirect URL: give the secret in SVC_CLIENT_SECRET');
    }
    const clientId = str(flags, 'clientId');
    if (clientId === '') {
      throw new UsageError("--client-id is given an empty value (an unset variable?); give the identifier of the service's application, or leave --client-id out to use the profile's");
    }
    const wait = str(flags, 'wait');
    return {
      passwordStdin: false,
      appsecretStdin: false,
      insecureStorage: bool(flags, 'insecureStorage'),
      web: {
        browser,
        ...(clientId !== undefined ? { clientId } : {}),
        clientSecretStdin: bool(flags, 'clientSecretStdin'),
        // A timer longer than MAX_TIMER_MS fires at once: such a --wait would give up before the browser opened.
        waitMs: wait !== undefined ? parseDuration(wait, '--wait', MAX_TIMER_MS) : DEFAULT_WEB_WAIT_MS,
      },
    };
  }
  const user = str(flags, 'user');
  const otp = str(flags, 'otp');
  const expires = str(flags, 'expires');
  return {
    ...(user !== undefined ? { user } : {}),
    passwordStdin,
    appsecretStdin,
    ...(otp !== undefined ? { otp } : {}),
    ...(expires !== undefined ? { expiresMs: expiresOf(expires) } : {}),
    insecureStorage: bool(flags, 'insecureStorage'),
  };
}
