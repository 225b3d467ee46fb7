/** `svc sandbox stop`: stop the sandbox of the data dir; none running is fine. */
import type { CommandSpec } from '../../../cli/command.js';
import { dataDirOption } from '../options.js';
import { toSandboxStopOptions, type SandboxStopOptions } from './options.js';

export const sandboxStopSpec: CommandSpec<SandboxStopOptions> = {
  name: 'stop',
  summary: 'stop the sandbox of the data dir (not running is fine)',
  options: [dataDirOption],
  toOptions: ({ flags }) => toSandboxStopOptions(flags),
  run: async (opts, ctx) => (await import('./run.js')).runSandboxStop(opts, ctx),
};
