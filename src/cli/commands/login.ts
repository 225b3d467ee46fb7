/**
 * `svc login` and `svc logout`: the words and options; the bodies load lazily
 * (they need the HTTP client, profiles and the keychain).
 */
import type { Command } from 'commander';
import type { Deps } from '../deps.js';

const LOGIN_HELP = `
On a terminal svc asks for what it needs: user name, password (hidden), the
application secret the first time (kept in the keychain for the profile), and
the one-time code of a two-factor account. Without a terminal it never asks:
  printf '%s' "$PASSWORD" | SVC_APPSECRET=… svc login --user dana --password-stdin
The token goes to the OS keychain; --insecure-storage keeps it in a 0600 file
instead (svc warns each time it is read). In cron, prefer SVC_TOKEN_FILE.

Examples:
  svc login
  svc login --profile prod --expires 30d
  svc login --user dana --password-stdin < password.txt
`;

/** Flags of `svc login`. */
export interface LoginFlags {
  user?: string;
  passwordStdin?: boolean;
  appsecretStdin?: boolean;
  otp?: string;
  expires?: string;
  insecureStorage?: boolean;
}

/** Adds `svc login` and `svc logout`. */
export function addLoginCommands(program: Command, deps: Deps): void {
  program
    .command('login')
    .description('sign in and keep an application-specific token for the profile')
    .option('--user <name>', 'user name or e-mail (asked on a terminal)')
    .option('--password-stdin', 'read the password from stdin (for scripts)')
    .option('--appsecret-stdin', 'read the application secret from stdin (when the password comes otherwise; or set SVC_APPSECRET)')
    .option('--otp <code>', 'the one-time code of a two-factor account (or SVC_OTP; asked on a terminal)')
    .option('--expires <duration>', 'token lifetime, e.g. 12h, 30d (default: the service decides, 100 days)')
    .option('--insecure-storage', 'keep the token in a 0600 file instead of the OS keychain')
    .addHelpText('after', LOGIN_HELP)
    .action(async (flags: LoginFlags, self: Command) => {
      const { runLogin } = await import('./login-run.js');
      await runLogin(self, deps, flags);
    });
  program
    .command('logout')
    .description('invalidate the token at the service and forget it here')
    .action(async (_opts: unknown, self: Command) => {
      const { runLogout } = await import('./login-run.js');
      await runLogout(self, deps);
    });
}
