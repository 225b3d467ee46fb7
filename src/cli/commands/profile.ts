/**
 * The `svc profile` command group: its words, options and help. Cheap to
 * build: the bodies (conf, the keychain) load only when a command runs.
 */
import type { Command } from 'commander';
import { emit } from '../legacy.js';
import type { Deps } from '../deps.js';

const ADD_HELP = `
The global --url and --ca-file give the profile's instance URL and extra CA file.
The first profile becomes the current one; adding an existing name updates it.

Examples:
  svc profile add acme --url https://erp.example.com/acme
  svc profile add local --url https://127.0.0.1:8642/demo --ca-file ~/.local/share/svc/sandbox/tls/ca.pem --use
`;

const SHOW_HELP = `
Without a name: the profile of --profile, else $SVC_PROFILE, else the current one.
Never shows a token, only whether one is stored.
`;

/** Adds `svc profile add|list|use|show|remove` to the program. */
export function addProfileCommands(program: Command, deps: Deps): void {
  const group = program.command('profile').description('manage profiles, named instance URLs: add, list, use, show, remove');
  group
    .command('add')
    .description('add a profile, or update one, with the instance URL of --url')
    .argument('<name>', "the profile's name: letters, digits, '.', '_' or '-'")
    .option('--use', 'make it the current profile')
    .option('--filter-member <name>', "send query filters under 'filters' (default, as the vendor's client does) or 'filter'")
    .addHelpText('after', ADD_HELP)
    .action(async (name: string, _opts: unknown, self: Command) => {
      const { addProfile } = await import('./profile-edit.js');
      await addProfile(self, deps, name);
    });
  group
    .command('list')
    .description('list the profiles; * marks the current one')
    .action(async (_opts: unknown, self: Command) => {
      const { profileListView } = await import('./profile-view.js');
      await emit(self, deps, () => profileListView(deps));
    });
  group
    .command('use')
    .description('make a profile the current one')
    .argument('<name>', 'a profile name')
    .action(async (name: string) => {
      const { useProfile } = await import('./profile-edit.js');
      await useProfile(deps, name);
    });
  group
    .command('show')
    .description("show a profile: URL, login identifier, CA file, config file, whether a token is stored")
    .argument('[name]', 'a profile name (default: the one in use)')
    .addHelpText('after', SHOW_HELP)
    .action(async (name: string | undefined, _opts: unknown, self: Command) => {
      const { profileShowView } = await import('./profile-view.js');
      await emit(self, deps, () => profileShowView(self, deps, name));
    });
  group
    .command('remove')
    .description('remove a profile with its stored token and application secret')
    .argument('<name>', 'a profile name')
    .action(async (name: string) => {
      const { removeProfile } = await import('./profile-edit.js');
      await removeProfile(deps, name);
    });
}
