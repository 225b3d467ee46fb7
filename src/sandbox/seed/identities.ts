/**
 * The people and applications of a seeded tenant: groups holding permissions,
 * users in those groups, and applications with hashed secrets (svc-cli, with
 * loopback callback URLs, is also the tenant's OAuth client). Passwords and
 * secrets are random per seed; the clear values are returned once (the
 * sandbox keeps them for `svc sandbox start` to print) and stored hashed.
 */
import { randomBytes } from 'node:crypto';
import { hashSecret, randomSecret } from '../auth/passwords.js';
import type { Db } from '../db.js';
import { insertRow } from '../data/store.js';
import { table } from '../schema.js';

/** Every permission name the service is known to use (NOTES), `admin` aside. */
export const PERMISSION_NAMES = [
  'accounts', 'actionsteps', 'billing', 'calendar', 'campaigns', 'collection', 'contacts', 'contracts',
  'coupons', 'dev', 'devices', 'documents', 'inventory', 'links', 'mailinglists', 'messages', 'notes',
  'opportunities', 'payments', 'pricelists', 'procurement', 'production', 'projects', 'tasks', 'tickets',
] as const;

export interface SeedUser {
  readonly id: number;
  readonly name: string;
  readonly email: string;
  readonly password: string;
  readonly role: 'admin' | 'reader' | 'no-accounts' | 'two-factor' | 'staff';
  /** Base32 TOTP secret of a two-factor user. */
  readonly otpsecret?: string;
}

export interface SeedApplication {
  readonly id: number;
  readonly name: string;
  readonly identifier: string;
  readonly appsecret: string;
  readonly active: boolean;
}

export interface Identities {
  readonly users: readonly SeedUser[];
  readonly applications: readonly SeedApplication[];
}

/** Redirect URIs of the seeded svc-cli application: loopback, so any port matches (see oauth/redirect-uris.ts). */
export const SVC_CLI_CALLBACKS: readonly string[] = ['http://127.0.0.1/callback', 'http://localhost/callback'];

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** A random base32 secret for TOTP (RFC 4648 alphabet, no padding). */
export function randomBase32(bytes = 20): string {
  const buf = randomBytes(bytes);
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of buf) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

const GROUPS: readonly { name: string; grants: (p: string) => boolean | undefined }[] = [
  // grants: true = writable, false = read only, undefined = not granted.
  { name: 'Administrators', grants: () => true },
  { name: 'Staff', grants: () => true },
  { name: 'Readers', grants: () => false },
  { name: 'Field service', grants: (p) => (p === 'accounts' ? undefined : true) },
];

const USERS: readonly { name: string; role: SeedUser['role']; group: number; fullName: string }[] = [
  { name: 'demo', role: 'admin', group: 1, fullName: 'Dana Demo' },
  { name: 'reader', role: 'reader', group: 3, fullName: 'Rita Reader' },
  { name: 'field', role: 'no-accounts', group: 4, fullName: 'Felix Field' },
  { name: 'secure', role: 'two-factor', group: 2, fullName: 'Sam Secure' },
  { name: 'staff', role: 'staff', group: 2, fullName: 'Stella Staff' },
];

/** Seeds groups, permissions, users and applications; returns the clear credentials. */
export function seedIdentities(db: Db, instance: string): Identities {
  const groupIds = GROUPS.map((g) => insertRow(db, instance, 'groups', { name: g.name }));
  GROUPS.forEach((g, i) => {
    const group = groupIds[i];
    if (i === 0) insertRow(db, instance, 'permissions', { group, identifier: 'admin', writable: 1 });
    for (const p of PERMISSION_NAMES) {
      const grant = g.grants(p);
      if (grant !== undefined) insertRow(db, instance, 'permissions', { group, identifier: p, writable: grant ? 1 : 0 });
    }
  });
  const users: SeedUser[] = USERS.map((u) => {
    const id = insertRow(db, instance, 'users', { name: u.name, email: `${u.name}@${instance}.example` });
    insertRow(db, instance, 'groups2users', { group: groupIds[u.group - 1], user: id, writable: 1 });
    const password = randomSecret(12);
    const otpsecret = u.role === 'two-factor' ? randomBase32() : undefined;
    db.prepare(`INSERT INTO ${table(instance, '_passwords')} (user, hash, otpsecret) VALUES (?, ?, ?)`).run(id, hashSecret(password), otpsecret ?? null);
    return { id, name: u.name, email: `${u.name}@${instance}.example`, password, role: u.role, ...(otpsecret ? { otpsecret } : {}) };
  });
  const apps: { name: string; identifier: string; active: boolean; callbackurls?: readonly string[] }[] = [
    // The tenant's OAuth application: svc login --web listens on a loopback port of its choosing (RFC 8252).
    { name: 'svc command line', identifier: 'svc-cli', active: true, callbackurls: SVC_CLI_CALLBACKS },
    { name: 'Reporting', identifier: 'reporting', active: true },
    { name: 'Retired integration', identifier: 'retired', active: false },
  ];
  const applications: SeedApplication[] = apps.map((a) => {
    const id = insertRow(db, instance, 'applications', {
      name: a.name,
      identifier: a.identifier,
      vendor: 'Sandbox',
      activity: a.active ? 0 : 1,
      ...(a.callbackurls ? { callbackurls: a.callbackurls } : {}),
    });
    const appsecret = randomSecret(24);
    db.prepare(`INSERT INTO ${table(instance, '_appsecrets')} (application, hash) VALUES (?, ?)`).run(id, hashSecret(appsecret));
    return { id, name: a.name, identifier: a.identifier, appsecret, active: a.active };
  });
  return { users, applications };
}
