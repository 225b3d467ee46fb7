/** `svc auth token`: the token svc would use, for piping. */
import type { CommandSpec, NoOptions } from '../../../cli/command.js';

/** `svc auth token` has no options of its own (the global --profile, --url and --token-file choose). */
export const authTokenSpec: CommandSpec<NoOptions> = {
  name: 'token',
  summary: 'print the token svc would use (for piping; treat it like a password)',
  // One example, under its own singular heading: kept in the notes.
  notes: `Prints the token and a newline, nothing else: for piping into another program.
Treat the output like a password. Exit 4 when there is no token.

Example:
  curl -H "Authorization: Bearer $(svc auth token)" https://erp.example.com/acme/auth/v1/`,
  toOptions: () => ({}),
  run: async (opts, ctx) => (await import('./run.js')).runAuthToken(opts, ctx),
};
