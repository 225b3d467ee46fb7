/** The `svc auth` group: the credentials svc uses. (`svc login`, `logout` and `whoami` sit at the top level.) */
import type { GroupSpec } from '../../cli/command.js';
import { authStatusSpec } from './status/command.js';
import { authTokenSpec } from './token/command.js';

export const authGroup: GroupSpec = {
  name: 'auth',
  summary: 'look at the credentials svc uses: status, token',
  subcommands: [authStatusSpec, authTokenSpec],
};
