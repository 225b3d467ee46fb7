/**
 * The rule for profile names, apart from profiles.ts so that a command's
 * options can check a name without loading node:crypto and node:os.
 */
import { UsageError } from '../errors.js';
import { shown } from '../util/shown.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

/** Whether a name is one a profile can have. */
export function validProfileName(name: string): boolean {
  return NAME.test(name);
}

/** Checks a profile name: letters, digits, '.', '_' and '-'. */
export function checkProfileName(name: string): void {
  if (!NAME.test(name)) throw new UsageError(`invalid profile name '${shown(name)}'; use letters, digits, '.', '_' or '-'`);
}
