import { describe, expect, it } from 'vitest';
import { families, findFamily, findField, isWritable } from '../../src/catalogue/index.js';
import { adminOnlyReads, defaultColumns, extraOperations, fieldNotes } from '../../src/catalogue/overrides.js';
import { verbsOf } from '../../src/records/verbs.js';

function family(name: string) {
  const f = findFamily(name);
  if (!f) throw new Error(`no family ${name}`);
  return f;
}

function field(fam: string, name: string) {
  const f = findField(family(fam), name);
  if (!f) throw new Error(`no field ${fam}.${name}`);
  return f;
}

// The brief's access-marker table.
const READ_ONLY = {
  'read-only': ['binfiles', 'customfields'],
  'developer read-only': ['applicationassets', 'applications', 'resources', 'services', 'weblets'],
  'restricted read-only': ['forks', 'groups', 'users'],
  'admin read-only': ['groups2users', 'permissions'],
};

describe('resource catalogue', () => {
  it('holds the 64 families the brief names', () => {
    expect(families).toHaveLength(64);
    expect(new Set(families.map((f) => f.name)).size).toBe(64);
    for (const name of ['accounts', 'contacts2contacts', 'objects', 'weblets', 'dunning2transactions']) {
      expect(findFamily(name)?.name).toBe(name);
    }
  });

  it('marks access as the brief does', () => {
    for (const [access, names] of Object.entries(READ_ONLY)) {
      expect(families.filter((f) => f.access === access).map((f) => f.name).sort()).toEqual([...names].sort());
    }
    expect(families.filter((f) => f.access === 'read-write')).toHaveLength(52);
  });

  it('gives the 11 read-only families and binfiles read verbs only (binfiles no watch or sync: it has no lastmodified)', () => {
    const readOnly = families.filter((f) => !isWritable(f)).map((f) => f.name);
    expect(readOnly).toHaveLength(12);
    expect(readOnly).toContain('binfiles');
    for (const name of readOnly) {
      const verbs = verbsOf(family(name));
      // watch and sync follow lastmodified, which binfiles has not.
      expect(verbs).toEqual(name === 'binfiles' ? ['query', 'count', 'sum', 'export', 'get', 'exists'] : ['query', 'count', 'sum', 'export', 'watch', 'sync', 'get', 'exists']);
      expect(family(name).permissions.write).toBeNull();
    }
    expect(verbsOf(family('accounts'))).toEqual([
      'query', 'count', 'sum', 'export', 'watch', 'sync', 'get', 'exists', 'create', 'update', 'delete', 'import',
    ]);
  });

  it('gives accounts.type the six names of the brief', () => {
    expect(field('accounts', 'type').enum).toEqual([
      { value: 0, name: 'PROSPECT' },
      { value: 1, name: 'CUSTOMER' },
      { value: 2, name: 'SUPPLIER' },
      { value: 3, name: 'CUSTOMERANDSUPPLIER' },
      { value: 4, name: 'COMPETITOR' },
      { value: 5, name: 'EMPLOYEE' },
    ]);
  });

  it('keeps bounds, patterns and limits from the brief', () => {
    expect(field('actionsteps', 'effort').minimum).toBe(0);
    expect(field('contacts', 'country').pattern).toBe('^([A-Z]{2})?$');
    expect(field('accounts', 'currency').pattern).toBe('^[A-Z]{3}$');
    expect(field('appointments', 'interval')).toMatchObject({ minimum: 1, maximum: 32767, default: 1 });
    expect(field('contracts', 'billingcycle')).toMatchObject({ minimum: 1, maximum: 32767, nullable: true });
    expect(field('contracts', 'exchangerate')).toMatchObject({ exclusiveMinimum: 0, default: 1, type: 'double' });
    expect(field('applications', 'identifier').maxLength).toBe(200);
    expect(field('binfiles', 'size').minimum).toBe(1);
  });

  it('types fields as the brief lists them', () => {
    expect(field('addresses', 'ID').type).toBe('int64');
    expect(family('addresses').idType).toBe('int64');
    expect(family('accounts').idType).toBe('int32');
    expect(field('accounts', 'locked').type).toBe('flag');
    expect(field('contacts', 'picbinfile').type).toBe('binfile');
    expect(field('comments', 'meta').type).toBe('meta');
    expect(field('contracts', 'billingitems').type).toBe('items');
    expect(field('components', 'amount').type).toBe('double');
    expect(field('accounts', 'creationdate')).toMatchObject({ type: 'int64', timestamp: true, defaultNow: true });
    expect(field('accounts', 'lastmodified').writable).toBe(false);
    expect(field('accounts', 'ID').writable).toBe(false);
  });

  it('reads parents, permissions and references', () => {
    expect(family('addresses').dependsOn).toEqual([{ field: 'account', family: 'accounts' }]);
    expect(family('files').dependsOn.map((d) => d.family)).toEqual(['records', 'comments']);
    expect(families.filter((f) => f.dependsOn.length > 0)).toHaveLength(16);
    expect(family('accounts').permissions.read).toEqual({ anyOf: ['accounts'], writable: false, creatorOnly: false });
    expect(family('accounts').permissions.write).toEqual({ anyOf: ['accounts'], writable: true, creatorOnly: false });
    expect(family('associations').permissions.read.anyOf).toEqual([]);
    expect(family('comments').permissions.write).toEqual({ anyOf: [], writable: false, creatorOnly: true });
    expect(family('transactions').permissions.read.anyOf).toEqual(['billing', 'procurement', 'production']);
    expect(family('groups2users').permissions.read.anyOf).toEqual(['admin']);
    // contact.city on accounts: the contact field leads to contacts, which has a city.
    const contact = field('accounts', 'contact');
    expect(contact.ref).toEqual({ family: 'contacts', field: 'ID', isFamily: true });
    expect(findField(family(contact.ref?.family ?? ''), 'city')?.type).toBe('string');
  });

  it('finds the columns NOTES calls required in practice and the cross-field rules', () => {
    const required = families.flatMap((f) => f.fields.filter((x) => x.required).map((x) => `${f.name}.${x.name}`));
    expect(required).toHaveLength(107);
    expect(required).toEqual(expect.arrayContaining([
      'accounts.currency', 'appointments.name', 'appointments.datefrom', 'appointments.dateto', 'tickets.name',
    ]));
    expect(family('actionsteps').rules).toContainEqual({ kind: 'at-most-one', fields: ['task', 'ticket', 'account'] });
    expect(family('appointments').rules).toContainEqual({ kind: 'ordered', lower: 'datefrom', upper: 'dateto' });
    expect(family('accounts').rules).toContainEqual({ kind: 'only-for', field: 'customernum', when: 'type', values: [0, 1, 3, 5] });
    expect(field('accounts', 'lastname').text).toBe('single-line');
  });

  it('has visibility on 18 families and activity on 14, as NOTES counts', () => {
    expect(families.filter((f) => findField(f, 'visibility'))).toHaveLength(18);
    expect(families.filter((f) => findField(f, 'activity'))).toHaveLength(14);
    expect(findField(family('transactions'), 'visibility')).toBeUndefined();
  });

  it('has overrides that name only real families, fields and default columns', () => {
    expect(Object.keys(defaultColumns).sort()).toEqual(families.map((f) => f.name).sort());
    for (const f of families) {
      expect(f.defaultColumns.length).toBeGreaterThan(0);
      for (const col of f.defaultColumns) expect(findField(f, col), `${f.name}.${col}`).toBeDefined();
    }
    for (const [fam, notes] of Object.entries(fieldNotes)) {
      for (const name of Object.keys(notes)) expect(findField(family(fam), name), `${fam}.${name}`).toBeDefined();
    }
    for (const fam of Object.keys(extraOperations)) expect(findFamily(fam)).toBeDefined();
    expect(family('binfiles').operations).toEqual(['list', 'get', 'exists']);
    for (const fam of adminOnlyReads) expect(family(fam).permissions.read.adminOnly, fam).toBe(true);
    expect(families.filter((f) => f.permissions.read.adminOnly).map((f) => f.name)).toEqual(['applications']);
  });
});
