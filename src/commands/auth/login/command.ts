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
    { flags: '--expires <duration>', help: 'token lifetime, from 1m to 3650d (ten years), e.g. 12h, 30d (default: the service decides, 100 days)' },
    { flags: '--insecure-storage', help: 'keep the token in a 0600 file instead of the OS keychain' },
    { flags: '--web', help: 'sign in with a browser (OAuth 2.0): no password or application secret reaches svc' },
    { flags: '--no-browser', help: 'with --web: print the sign-in URL instead of opening it (SSH, containers); paste the address the browser ends on' },
    { flags: '--client-id <id>', help: "with --web: the OAuth application's identifier (default: the profile's, see svc profile add --client-id)" },
    { flags: '--client-secret-stdin', help: 'with --web: read the client secret from stdin (or set SVC_CLIENT_SECRET; asked on a terminal)' },
    { flags: '--wait <duration>', help: 'with --web: how long to wait for the browser (default 5m)' },
  ],
  notes: `On a terminal svc asks for what it needs: user name, password (hidden), the
application secret the first time (kept in the keychain for the profile), and
the one-time code of a two-factor account. Without a terminal it never asks:
  printf '%s' "$PASSWORD" | SVC_APPSECRET=… svc login --user dana --password-stdin
The token goes to the OS keychain; --insecure-storage keeps it in a 0600 file
instead (svc warns each time it is read). In cron, prefer SVC_TOKEN_FILE.

With --web, svc opens the service's sign-in page in your browser ($BROWSER, else
the system's) and waits on 127.0.0.1 for it to come back; the password and a
two-factor code are typed there, never into svc. Commands then renew the
access token by themselves (refresh tokens, one process at a time).
Over SSH or in a container, --no-browser prints the URL: open it anywhere,
and when the browser cannot reach this machine, paste the address it ends on.`,
  examples: [
    'svc login',
    'svc login --profile prod --expires 30d',
    'svc login --user dana --password-stdin < password.txt',
    'SVC_CLIENT_SECRET=… svc login --web --client-id svc-cli',
    'svc login --web --no-browser',
  ],
  toOptions: ({ flags }) => toLoginOptions(flags),
  run: async (opts, ctx) => (opts.web ? (await import('./web.js')).runWebLogin(opts, opts.web, ctx) : (await import('./run.js')).runLogin(opts, ctx)),
};
