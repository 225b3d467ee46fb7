/**
 * How `svc whoami` shows the session info: as data, the service's object
 * unchanged; as a table, the user's details and a table of permissions.
 */
import type { ObjectView } from '../../../output/view.js';

/** The members of the session info svc shows; the service may send more. */
export interface SessionInfo {
  readonly user?: number;
  readonly name?: string;
  readonly email?: string;
  readonly admin?: boolean;
  readonly groups?: Readonly<Record<string, boolean>>;
  readonly permissions?: Readonly<Record<string, boolean>>;
}

function groupsLabel(groups: Readonly<Record<string, boolean>>): string {
  const ids = Object.keys(groups);
  return ids.length > 0 ? ids.join(', ') : 'none';
}

/** The session info as a view: details, then one permission a row (read, or read and write). */
export function sessionView(info: SessionInfo, instance: string): ObjectView {
  const details: [string, string][] = [
    ['user', info.user === undefined ? '' : String(info.user)],
    ['name', info.name ?? ''],
    ['email', info.email ?? ''],
    ['admin', info.admin ? 'yes' : 'no'],
    ['groups', groupsLabel(info.groups ?? {})],
    ['instance', instance],
  ];
  const rows = Object.entries(info.permissions ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([permission, writable]) => ({ permission, access: writable ? 'read and write' : 'read' }));
  return {
    kind: 'object',
    value: info,
    details,
    table: { title: 'permissions', columns: [{ key: 'permission' }, { key: 'access' }], rows },
    // The permissions are one part of the session: csv and tsv carry all of it.
    csv: 'value',
  };
}
