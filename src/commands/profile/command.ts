/** The `svc profile` group: named instance URLs. The bodies (conf, the keychain) load only when a verb runs. */
import type { GroupSpec } from '../../cli/command.js';
import { profileAddSpec } from './add/command.js';
import { profileListSpec } from './list/command.js';
import { profileRemoveSpec } from './remove/command.js';
import { profileShowSpec } from './show/command.js';
import { profileUseSpec } from './use/command.js';

export const profileGroup: GroupSpec = {
  name: 'profile',
  summary: 'manage profiles, named instance URLs: add, list, use, show, remove',
  subcommands: [profileAddSpec, profileListSpec, profileUseSpec, profileShowSpec, profileRemoveSpec],
};
