/** `svc login`'s typed options and how its flags become them (pure; tests check it without a server). */
import { bool, str } from '../../../cli/command.js';
import { UsageError } from '../../../errors.js';
import { parseDuration } from '../../../util/duration.js';

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
}

/** Flags → LoginOptions; both secrets from stdin, or a bad --expires, is a UsageError. */
export function toLoginOptions(flags: Readonly<Record<string, unknown>>): LoginOptions {
  const passwordStdin = bool(flags, 'passwordStdin');
  const appsecretStdin = bool(flags, 'appsecretStdin');
  if (passwordStdin && appsecretStdin) {
    throw new UsageError('--password-stdin and --appsecret-stdin cannot both read stdin; give the secret in SVC_APPSECRET');
  }
  const user = str(flags, 'user');
  const otp = str(flags, 'otp');
  const expires = str(flags, 'expires');
  return {
    ...(user !== undefined ? { user } : {}),
    passwordStdin,
    appsecretStdin,
    ...(otp !== undefined ? { otp } : {}),
    ...(expires !== undefined ? { expiresMs: parseDuration(expires, '--expires') } : {}),
    insecureStorage: bool(flags, 'insecureStorage'),
  };
}
