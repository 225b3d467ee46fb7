/**
 * Permission checks of the data interface, from the catalogue's rules: reads
 * need one of the named permissions, writes their writable form; creator-only
 * families need the caller to be the record's creator; admin-only rules admit
 * admins alone. Admins hold every named permission (creator-only rules still
 * apply to them).
 */
import type { PermissionRule, ResourceFamily } from '../../catalogue/index.js';
import type { Session } from '../context.js';
import { forbidden } from '../errors.js';

function holds(session: Session, rule: PermissionRule): boolean {
  if (session.admin) return true;
  if (rule.adminOnly) return false;
  if (rule.anyOf.length === 0) return true;
  return rule.anyOf.some((name) => (rule.writable ? session.permissions.get(name) === true : session.permissions.has(name)));
}

function describeRule(rule: PermissionRule): string {
  const names = rule.anyOf.map((n) => `'${n}'`).join(' or ');
  return `${rule.writable ? 'writable ' : ''}${names} permission`;
}

/** Throws 403 unless the caller may read the family (admins only where the rule says so). */
export function checkRead(session: Session, family: ResourceFamily): void {
  const rule = family.permissions.read;
  if (holds(session, rule)) return;
  if (rule.adminOnly) checkAdmin(session, `reading ${family.name}`);
  throw forbidden(`Access denied: reading ${family.name} requires the ${describeRule(rule)}`);
}

/** Throws 403 unless the caller may write the family (and, where required, is the record's creator). */
export function checkWrite(session: Session, family: ResourceFamily, creator?: number | null): void {
  const rule = family.permissions.write;
  if (!rule) throw forbidden(`Access denied: ${family.name} is read-only`);
  if (!holds(session, rule)) throw forbidden(`Access denied: writing ${family.name} requires the ${describeRule(rule)}`);
  if (rule.creatorOnly && creator !== undefined && creator !== session.user) {
    throw forbidden(`Access denied: only the creator of this ${family.name} record may change it`);
  }
}

/** Throws 403 unless the caller is an admin (server-side CSV export). */
export function checkAdmin(session: Session, what: string): void {
  if (!session.admin) throw forbidden(`Access denied: ${what} is for admin users only`);
}
