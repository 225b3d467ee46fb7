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

/** The rule, as messages state it. */
const RULE = "a profile name is 1 to 63 letters, digits, '.', '_' or '-', starting with a letter or digit";

/** Checks a profile name (see RULE): a UsageError naming the part of the rule it breaks. */
export function checkProfileName(name: string): void {
  if (NAME.test(name)) return;
  const why =
    name === ''
      ? 'it is empty'
      : !/^[A-Za-z0-9]/.test(name)
        ? `it starts with '${shown([...name][0] ?? '')}'`
        : /[^A-Za-z0-9_.-]/.test(name)
          ? `'${shown(/[^A-Za-z0-9_.-]/u.exec(name)?.[0] ?? '')}' is not allowed in it`
          : `it is ${name.length} characters long`;
  throw new UsageError(`invalid profile name '${shown(name, 70)}': ${why}; ${RULE}`);
}
