/**
 * `svc whoami` and the `svc auth` group: who the token belongs to, where it
 * came from and whether it is valid, and the token itself for piping. The
 * bodies load only when a command runs.
 */
import type { Command } from 'commander';
import { emit } from '../legacy.js';
import type { Deps } from '../deps.js';

const STATUS_HELP = `
Shows the profile or URL in use, which credential won (--token-file, SVC_TOKEN,
SVC_TOKEN_FILE, the keychain or the plain file), and whether the service accepts the
token. Exit 4 when not signed in or the token is not valid.
`;

const TOKEN_HELP = `
Prints the token and a newline, nothing else: for piping into another program.
Treat the output like a password. Exit 4 when there is no token.

Example:
  curl -H "Authorization: Bearer $(svc auth token)" https://erp.example.com/acme/auth/v1/
`;

/** Adds `svc whoami`, `svc auth status` and `svc auth token` to the program. */
export function addAuthCommands(program: Command, deps: Deps): void {
  program
    .command('whoami')
    .description('show the signed-in user: name, e-mail, admin, groups and permissions')
    .action(async (_opts: unknown, self: Command) => {
      const { whoamiView } = await import('./auth-whoami.js');
      await emit(self, deps, () => whoamiView(self, deps));
    });
  const group = program.command('auth').description('look at the credentials svc uses: status, token');
  group
    .command('status')
    .description('say which instance and credential svc uses and whether the token is valid')
    .addHelpText('after', STATUS_HELP)
    .action(async (_opts: unknown, self: Command) => {
      const { authStatusView } = await import('./auth-status.js');
      await emit(self, deps, () => authStatusView(self, deps));
    });
  group
    .command('token')
    .description('print the token svc would use (for piping; treat it like a password)')
    .addHelpText('after', TOKEN_HELP)
    .action(async (_opts: unknown, self: Command) => {
      const { authTokenView } = await import('./auth-status.js');
      await emit(self, deps, () => authTokenView(self, deps));
    });
}
