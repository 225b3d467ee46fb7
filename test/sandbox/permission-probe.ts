/**
 * The permission probe: what the seeded users must never be able to do, asked
 * over real HTTP, plus a look at the test process's own prototypes (the test
 * sandbox runs in this process). Run it after anything hostile: an empty list
 * means no user gained anything. Shared by the fuzz suite and the hardening tests.
 *
 *   reader (read-only)       cannot create accounts (403)
 *   field (no `accounts`)    cannot query accounts (403)
 *   staff                    cannot read an account owned by Administrators (404, and absent from queries)
 *   reader, staff            cannot use the admins' CSV export (403)
 *   health                   still answers 200
 *   Object/Array/Function.prototype   have exactly the own properties (keys, values, getters,
 *                            setters, attributes) they had when the probe was made
 *
 * Positive controls keep it from passing on a broken server: demo (admin)
 * reads the hidden account, and reader queries accounts.
 */
import type { TestSandbox } from '../helpers/sandbox.js';

export interface PermissionProbe {
  /** The hidden account (owned by the Administrators group). */
  readonly hiddenAccount: number;
  /** One line per check that failed; empty when every user has exactly their permissions. */
  run(): Promise<string[]>;
}

const PROTOTYPES: readonly (readonly [string, object])[] = [
  ['Object', Object.prototype],
  ['Array', Array.prototype],
  ['Function', Function.prototype],
];

/** Every own property of each prototype (string and symbol keys) with its descriptor, as it is now. */
type Snapshot = ReadonlyMap<object, ReadonlyMap<string | symbol, PropertyDescriptor>>;

function prototypeSnapshot(): Snapshot {
  return new Map(PROTOTYPES.map(([, proto]) => [proto, new Map(Reflect.ownKeys(proto).map((k) => [k, Object.getOwnPropertyDescriptor(proto, k) ?? {}]))]));
}

/** Whether two descriptors are the same property: identical value, getter and setter, and the same attributes. */
function sameProperty(a: PropertyDescriptor, b: PropertyDescriptor): boolean {
  return (
    Object.is(a.value, b.value) && a.get === b.get && a.set === b.set && a.writable === b.writable && a.enumerable === b.enumerable && a.configurable === b.configurable
  );
}

/** One line per property of a prototype gained, lost or changed (an overwritten built-in too) since `before`. */
function prototypeChanges(before: Snapshot): string[] {
  const out: string[] = [];
  const now = prototypeSnapshot();
  for (const [name, proto] of PROTOTYPES) {
    const was = before.get(proto) ?? new Map<string | symbol, PropertyDescriptor>();
    const is = now.get(proto) ?? new Map<string | symbol, PropertyDescriptor>();
    for (const [key, d] of is) {
      const old = was.get(key);
      if (!old) out.push(`${name}.prototype gained the key '${String(key)}'`);
      else if (!sameProperty(old, d)) out.push(`${name}.prototype's '${String(key)}' was replaced or redefined`);
    }
    for (const key of was.keys()) if (!is.has(key)) out.push(`${name}.prototype lost the key '${String(key)}'`);
  }
  return out;
}

/** The ID of the seeded Administrators group (the group that holds `admin`). */
async function adminGroup(s: TestSandbox): Promise<number> {
  const r = await s.call('POST', 'api/v1/permissions', { token: s.token('demo'), json: { filter: { identifier: 'admin' }, fields: ['group'] } });
  const rows = r.status === 200 ? r.json<{ group: number }[]>() : [];
  if (!rows[0]) throw new Error(`cannot find the Administrators group: ${r.status} ${r.text}`);
  return rows[0].group;
}

/**
 * Makes a probe for a running test sandbox: creates (as demo) an account owned
 * by the Administrators group and records the prototypes' properties as they are now.
 */
export async function createPermissionProbe(s: TestSandbox): Promise<PermissionProbe> {
  const baseline = prototypeSnapshot();
  const group = await adminGroup(s);
  const created = await s.call('PUT', 'api/v1/accounts', {
    token: s.token('demo'),
    json: { lastname: 'Probe Hidden Holdings', currency: 'EUR', ownergroup: group },
  });
  if (created.status !== 201) throw new Error(`cannot create the probe's hidden account: ${created.status} ${created.text}`);
  const hiddenAccount = created.json<{ ID: number }>().ID;

  async function expectStatus(what: string, expected: number, method: string, path: string, opts: Parameters<TestSandbox['call']>[2]): Promise<string | undefined> {
    const r = await s.call(method, path, opts);
    return r.status === expected ? undefined : `${what}: expected ${expected}, got ${r.status} ${r.text.slice(0, 120)}`;
  }

  return {
    hiddenAccount,
    async run() {
      const failures = prototypeChanges(baseline);
      if (({} as Record<string, unknown>).admin !== undefined) failures.push('a plain object inherits an admin key');
      const checks = await Promise.all([
        expectStatus('health answers', 200, 'GET', '/_sandbox/health', { token: null }),
        expectStatus('reader cannot create accounts', 403, 'PUT', 'api/v1/accounts', {
          token: s.token('reader'),
          json: { lastname: 'Probe Intruder', currency: 'EUR' },
        }),
        expectStatus('field cannot query accounts', 403, 'POST', 'api/v1/accounts', { token: s.token('field'), json: { limit: 1 } }),
        expectStatus('staff cannot read the Administrators account', 404, 'GET', `api/v1/accounts/${hiddenAccount}`, { token: s.token('staff') }),
        expectStatus('reader cannot export', 403, 'POST', 'api/v1/accounts', { token: s.token('reader'), json: { export: true, limit: 1 } }),
        expectStatus('staff cannot export', 403, 'POST', 'api/v1/accounts', { token: s.token('staff'), json: { export: true, limit: 1 } }),
        expectStatus('demo (admin) reads the hidden account', 200, 'GET', `api/v1/accounts/${hiddenAccount}`, { token: s.token('demo') }),
        expectStatus('reader queries accounts', 200, 'POST', 'api/v1/accounts', { token: s.token('reader'), json: { limit: 1, fields: ['ID'] } }),
      ]);
      const seen = await s.call('POST', 'api/v1/accounts', { token: s.token('staff'), json: { filter: { ID: hiddenAccount }, count: true } });
      if (seen.status !== 200 || seen.json<{ count: number }>().count !== 0) {
        checks.push(`staff's query finds the Administrators account: ${seen.status} ${seen.text.slice(0, 120)}`);
      }
      return [...failures, ...checks.filter((c): c is string => c !== undefined)];
    },
  };
}
