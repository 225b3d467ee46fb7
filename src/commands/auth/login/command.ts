/** `svc login`: its options and help (the typed options: options.ts); the body loads only when it runs. */
import type { CommandSpec } from '../../../cli/command.js';
import { toLoginOptions, type LoginOptions } from './options.js';

export const loginSpec: CommandSpec<LoginOptions> = {
  name: 'login',
  summary: 'sign in and keep an application-specific token for the profile',
  options: [
    { flags: '--user <name>', help: 'user name or e-mail (asked on a terminal)' },
    { flags: '--password-stdin', help: 'read the password from stdin (for scripts)' },
    { flags: '--appsecret-stdin', help: 'read the application secret from stdin (when the password comes otherwise; or set SVC_APPSECRET)' },
    { flags: '--otp <code>', help: 'the one-time code of a two-factor account (or SVC_OTP; asked on a terminal)' },
    { flags: '--expires <duration>', help: 'token lifetime, e.g. 12h, 30d (default: the service decides, 100 days)' },
    { flags: '--insecure-storage', help: 'keep the token in a 0600 file instead of the OS keychain' },
  ],
  notes: `On a terminal svc asks for what it needs: user name, password (hidden), the
application secret the first time (kept in the keychain for the profile), and
the one-time code of a two-factor account. Without a terminal it never asks:
  printf '%s' "$PASSWORD" | SVC_APPSECRET=… svc login --user dana --password-stdin
The token goes to the OS keychain; --insecure-storage keeps it in a 0600 file
instead (svc warns each time it is read). In cron, prefer SVC_TOKEN_FILE.`,
  examples: ['svc login', 'svc login --profile prod --expires 30d', 'svc login --user dana --password-stdin < password.txt'],
  toOptions: ({ flags }) => toLoginOptions(flags),
  run: async (opts, ctx) => (await import('./run.js')).runLogin(opts, ctx),
};
