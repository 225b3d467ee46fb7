/** `svc auth status`: which instance and credential svc uses, and whether the service accepts the token. */
import type { CommandSpec, NoOptions } from '../../../cli/command.js';

/** `svc auth status` has no options of its own (the global --profile, --url and --token-file choose). */
export const authStatusSpec: CommandSpec<NoOptions> = {
  name: 'status',
  summary: 'say which instance and credential svc uses and whether the token is valid',
  notes: `Shows the profile or URL in use, which credential won (--token-file, SVC_TOKEN,
SVC_TOKEN_FILE, the keychain or the plain file), and whether the service accepts the
token. Exit 4 when not signed in or the token is not valid.`,
  toOptions: () => ({}),
  run: async (opts, ctx) => (await import('./run.js')).runAuthStatus(opts, ctx),
};
