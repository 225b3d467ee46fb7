/** OAuth client ids as the service defines them (an application's identifier): checked where a profile or a sign-in takes one. */
import { UsageError } from '../errors.js';
import { shown } from '../util/shown.js';

const CLIENT_ID = /^[a-zA-Z0-9]([a-zA-Z0-9_.-]{0,198}[a-zA-Z0-9])?$/;

/** The client id, or a UsageError naming the rule. */
export function checkClientId(value: string): string {
  if (!CLIENT_ID.test(value)) {
    throw new UsageError(`invalid client id '${shown(value, 80)}': an application identifier is 1-200 letters, digits, '_', '.' or '-', starting and ending with a letter or digit`);
  }
  return value;
}
