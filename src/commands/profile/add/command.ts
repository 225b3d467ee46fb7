/** `svc profile add NAME`: the profile's name and options; the instance URL and CA file come from the global --url and --ca-file. */
import type { CommandSpec } from '../../../cli/command.js';
import { toProfileAddOptions, type ProfileAddOptions } from './options.js';

export const profileAddSpec: CommandSpec<ProfileAddOptions> = {
  name: 'add',
  summary: 'add a profile, or update one, with the instance URL of --url',
  args: [{ name: 'name', help: "the profile's name: 1 to 63 letters, digits, '.', '_' or '-', starting with a letter or digit" }],
  options: [
    { flags: '--use', help: 'make it the current profile' },
    { flags: '--filter-member <name>', help: "send query filters under 'filters' (default, as the vendor's client does) or 'filter'" },
    { flags: '--client-id <id>', help: "the OAuth application 'svc login --web' signs in through (its identifier)" },
  ],
  notes: `The global --url and --ca-file give the profile's instance URL and extra CA file.
The first profile becomes the current one; adding an existing name updates it.`,
  examples: [
    'svc profile add acme --url https://erp.example.com/acme',
    'svc profile add local --url https://127.0.0.1:8642/demo --ca-file ~/.local/share/svc/sandbox/tls/ca.pem --use',
  ],
  toOptions: ({ args, flags }) => toProfileAddOptions(String(args[0]), flags),
  run: async (opts, ctx) => (await import('./run.js')).runProfileAdd(opts, ctx),
};
