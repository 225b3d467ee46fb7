/**
 * Who may see a record, by the brief's ownership conventions: a record whose
 * `owneruser` and `ownergroup` are both null is PUBLIC; otherwise it belongs
 * to that user or to the members of that group. Admins see everything; a user
 * marked `nopublic` does not see public records. Families without ownership
 * fields are visible to everyone who holds the read permission.
 */
import type { ResourceFamily } from '../../catalogue/index.js';
import type { Session } from '../context.js';
import { q } from '../db.js';

function ownershipFields(family: ResourceFamily): { user: boolean; group: boolean } {
  return {
    user: family.fields.some((f) => f.name === 'owneruser'),
    group: family.fields.some((f) => f.name === 'ownergroup'),
  };
}

function groupIds(session: Session): number[] {
  return [...session.groups.keys()];
}

/** Whether the caller may see this row. */
export function canSee(session: Session, family: ResourceFamily, row: Readonly<Record<string, unknown>>): boolean {
  const has = ownershipFields(family);
  if (session.admin || (!has.user && !has.group)) return true;
  const owner = has.user && Object.hasOwn(row, 'owneruser') ? (row.owneruser as number | null) : null;
  const group = has.group && Object.hasOwn(row, 'ownergroup') ? (row.ownergroup as number | null) : null;
  if (owner === null && group === null) return !session.nopublic;
  return owner === session.user || (group !== null && session.groups.has(group));
}

/**
 * The same rule as an SQL condition on the family's table under `alias`, or
 * undefined when the caller sees every row. Values go through `bind`, which
 * returns the placeholder for each.
 */
export function visibilitySql(session: Session, family: ResourceFamily, alias: string, bind: (value: number) => string): string | undefined {
  const has = ownershipFields(family);
  if (session.admin || (!has.user && !has.group)) return undefined;
  const col = (name: string): string => `${q(alias)}.${q(name)}`;
  const isPublic = [has.user ? `${col('owneruser')} IS NULL` : '', has.group ? `${col('ownergroup')} IS NULL` : ''].filter(Boolean).join(' AND ');
  const parts: string[] = [];
  if (!session.nopublic) parts.push(`(${isPublic})`);
  if (has.user) parts.push(`${col('owneruser')} = ${bind(session.user)}`);
  const groups = groupIds(session);
  if (has.group && groups.length > 0) parts.push(`${col('ownergroup')} IN (${groups.map(bind).join(', ')})`);
  return parts.length ? `(${parts.join(' OR ')})` : '0';
}
