/** The `svc sandbox` group: the local sandbox of the service. The bodies (and the server) load only when a verb runs. */
import type { GroupSpec } from '../../cli/command.js';
import { sandboxResetSpec } from './reset/command.js';
import { sandboxStartSpec } from './start/command.js';
import { sandboxStatusSpec } from './status/command.js';
import { sandboxStopSpec } from './stop/command.js';

export const sandboxGroup: GroupSpec = {
  name: 'sandbox',
  summary: 'run the local sandbox of the service: start, status, stop, reset',
  subcommands: [sandboxStartSpec, sandboxStatusSpec, sandboxStopSpec, sandboxResetSpec],
};
