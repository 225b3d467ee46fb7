/** `svc sandbox status`: whether a sandbox runs from the data dir; the exit code says so too. */
import type { CommandSpec } from '../../../cli/command.js';
import { dataDirOption } from '../options.js';
import { toSandboxStatusOptions, type SandboxStatusOptions } from './options.js';

export const sandboxStatusSpec: CommandSpec<SandboxStatusOptions> = {
  name: 'status',
  summary: 'say whether a sandbox runs from the data dir, with its URL and pid',
  options: [dataDirOption],
  notes: 'Exit codes: 0 a sandbox runs from the data dir and answers; 3 none runs.',
  toOptions: ({ flags }) => toSandboxStatusOptions(flags),
  run: async (opts, ctx) => (await import('./run.js')).runSandboxStatus(opts, ctx),
};
