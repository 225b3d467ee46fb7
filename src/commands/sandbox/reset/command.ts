/** `svc sandbox reset`: wipe and reseed the sandbox tenant. */
import type { CommandSpec } from '../../../cli/command.js';
import { dataDirOption } from '../options.js';
import { toSandboxResetOptions, type SandboxResetOptions } from './options.js';

export const sandboxResetSpec: CommandSpec<SandboxResetOptions> = {
  name: 'reset',
  summary: 'wipe and reseed the sandbox tenant (restarting it if it runs) and print the new credentials',
  options: [dataDirOption, { flags: '--seed-accounts <n>', help: 'accounts in the new tenant' }],
  toOptions: ({ flags }) => toSandboxResetOptions(flags),
  run: async (opts, ctx) => (await import('./run.js')).runSandboxReset(opts, ctx),
};
