/** `svc profile add NAME`'s typed options and how its name and flags become them. */
import { bool, str } from '../../../cli/command.js';
import { checkClientId } from '../../../config/client-id.js';
import { checkProfileName } from '../../../config/profile-name.js';
import { UsageError } from '../../../errors.js';
import { shown } from '../../../util/shown.js';

export interface ProfileAddOptions {
  readonly name: string;
  /** --use: make it the current profile. */
  readonly use: boolean;
  /** --filter-member: the query member filters are sent under. */
  readonly filterMember?: 'filter' | 'filters';
  /** --client-id: the OAuth application `svc login --web` signs in through. */
  readonly clientId?: string;
}



/** Checks --filter-member: the query member filters are sent under. */
function checkFilterMember(value: string | undefined): 'filter' | 'filters' | undefined {
  if (value === undefined || value === 'filter' || value === 'filters') return value;
  throw new UsageError(`--filter-member takes 'filters' (the default) or 'filter', not '${shown(value, 40)}'`);
}

/** Name and flags → ProfileAddOptions; a bad name or --filter-member is a UsageError. */
export function toProfileAddOptions(name: string, flags: Readonly<Record<string, unknown>>): ProfileAddOptions {
  checkProfileName(name);
  const filterMember = checkFilterMember(str(flags, 'filterMember'));
  const clientId = str(flags, 'clientId');
  if (clientId === '') throw new UsageError("--client-id is given an empty value (an unset variable?); give the identifier of the service's application, or leave --client-id out");
  return { name, use: bool(flags, 'use'), ...(filterMember ? { filterMember } : {}), ...(clientId !== undefined ? { clientId: checkClientId(clientId) } : {}) };
}
