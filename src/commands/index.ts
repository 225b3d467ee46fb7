/**
 * Every hand-written command of svc, as data (one folder each under
 * src/commands/), in the order help lists them; program.ts puts svc's own
 * `completion` and `help` after `describe`. The record families' verbs come
 * from records/verbs.ts.
 */
import type { AnySpec } from '../cli/command.js';
import { apiSpec } from './api/command.js';
import { authGroup } from './auth/command.js';
import { loginSpec } from './auth/login/command.js';
import { logoutSpec } from './auth/logout/command.js';
import { whoamiSpec } from './auth/whoami/command.js';
import { describeSpec } from './describe/command.js';
import { configSpec } from './general/config/command.js';
import { settingsSpec } from './general/settings/command.js';
import { syncSpec } from './sync/command.js';
import { profileGroup } from './profile/command.js';
import { resourcesSpec } from './resources/command.js';
import { sandboxGroup } from './sandbox/command.js';
import { versionSpec } from './version/command.js';

export const commands: readonly AnySpec[] = [
  resourcesSpec,
  describeSpec,
  loginSpec,
  logoutSpec,
  whoamiSpec,
  authGroup,
  profileGroup,
  sandboxGroup,
  configSpec,
  settingsSpec,
  versionSpec,
  apiSpec,
  syncSpec,
];
