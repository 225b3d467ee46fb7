/**
 * The `svc auth` group: signing in and the credentials svc uses. `svc login`,
 * `logout` and `whoami` are also at the top level (the same commands), as
 * `gh auth login` and `gh auth status` sit beside each other.
 */
import type { GroupSpec } from '../../cli/command.js';
import { loginSpec } from './login/command.js';
import { logoutSpec } from './logout/command.js';
import { whoamiSpec } from './whoami/command.js';
import { authStatusSpec } from './status/command.js';
import { authTokenSpec } from './token/command.js';

export const authGroup: GroupSpec = {
  name: 'auth',
  summary: 'sign in and look at the credentials svc uses: login, logout, whoami, status, token',
  subcommands: [loginSpec, logoutSpec, whoamiSpec, authStatusSpec, authTokenSpec],
};
