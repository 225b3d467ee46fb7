import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { families } from '../../src/catalogue/index.js';
import { openDatabase, q, type Db } from '../../src/sandbox/db.js';
import { createInstance, table } from '../../src/sandbox/schema.js';
import { DEMO_ACCOUNTS, seedInstance } from '../../src/sandbox/seed/index.js';
import { useTestSandbox } from '../helpers/sandbox.js';

const NOW = 1_750_000_000;
const IDENTITIES = new Set(['users', 'groups', 'groups2users', 'permissions', 'applications']);

/** The business families the demo tenant fills. */
const SEEDED = [
  'accounts', 'contacts', 'addresses', 'items', 'storages', 'stocktransactions', 'pricelists', 'prices', 'pricelists2accounts',
  'projects', 'tasks', 'tickets', 'transactions', 'payments', 'actionsteps', 'appointments', 'campaigns', 'notes',
  'opportunities', 'contracts', 'records', 'comments',
];

function seeded(accounts: number, now = NOW): Db {
  const db = openDatabase(':memory:');
  createInstance(db, 'demo');
  seedInstance(db, 'demo', { accounts, now });
  return db;
}

function rows(db: Db, family: string, where = ''): Record<string, unknown>[] {
  return db.prepare(`SELECT * FROM ${table('demo', family)} ${where} ORDER BY "ID"`).all() as Record<string, unknown>[];
}

function count(db: Db, family: string, where = ''): number {
  return (db.prepare(`SELECT count(*) AS n FROM ${table('demo', family)} ${where}`).get() as { n: number }).n;
}

describe('the demo tenant', () => {
  let db: Db;
  beforeAll(() => {
    db = seeded(DEMO_ACCOUNTS);
  });
  afterAll(() => db.close());

  it('is deterministic: the same accounts and now give the same rows in every family', () => {
    const again = seeded(DEMO_ACCOUNTS);
    // Identities are stamped with the wall clock (and their secrets live in private tables).
    const comparable = (family: string, d: Db): unknown[] =>
      rows(d, family).map((r) => (IDENTITIES.has(family) ? { ...r, creationdate: 0, lastmodified: 0 } : r));
    try {
      for (const f of families) expect(comparable(f.name, again), f.name).toEqual(comparable(f.name, db));
    } finally {
      again.close();
    }
  });

  it('moves its account dates with now and nothing else', () => {
    const later = seeded(DEMO_ACCOUNTS, NOW + 86400);
    try {
      const a = rows(db, 'accounts');
      const b = rows(later, 'accounts');
      expect(b.map((r) => r.lastname)).toEqual(a.map((r) => r.lastname));
      expect(b.map((r) => (r.creationdate as number) - 86400)).toEqual(a.map((r) => r.creationdate));
      expect(b.map((r) => (r.lastmodified as number) - 86400)).toEqual(a.map((r) => r.lastmodified));
    } finally {
      later.close();
    }
  });

  it('fills every main family', () => {
    for (const f of SEEDED) expect(count(db, f), f).toBeGreaterThan(0);
    expect(count(db, 'accounts')).toBe(DEMO_ACCOUNTS);
  });

  it('has foreign keys that hold', () => {
    expect(db.prepare('PRAGMA foreign_key_check').all()).toEqual([]);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it('covers all six account types, with numbers only where the type allows them', () => {
    const types = db.prepare(`SELECT DISTINCT type FROM ${table('demo', 'accounts')} ORDER BY type`).pluck().all();
    expect(types).toEqual([0, 1, 2, 3, 4, 5]);
    expect(count(db, 'accounts', `WHERE type IN (1, 3, 5) AND customernum = ''`)).toBe(0);
    expect(count(db, 'accounts', `WHERE type IN (2, 3) AND suppliernum = ''`)).toBe(0);
  });

  it('keeps the rules the sandbox does not enforce itself', () => {
    // Company contacts carry no person fields; the company name is in lastname.
    expect(count(db, 'contacts', `WHERE type = 0 AND (company <> '' OR title <> '' OR position <> '' OR birthdate IS NOT NULL)`)).toBe(0);
    expect(count(db, 'opportunities', 'WHERE status = 5 AND probability <> 100')).toBe(0);
    expect(count(db, 'items', 'WHERE model IS NOT NULL AND type = 7')).toBe(0);
    expect(count(db, 'records', 'WHERE (entity IS NULL) <> ("index" IS NULL) OR assigneduser = creator')).toBe(0);
    expect(count(db, 'transactions', 'WHERE type < 10 AND (item IS NOT NULL OR productionfactor IS NOT NULL)')).toBe(0);
    expect(count(db, 'transactions', 'WHERE type >= 10 AND (account IS NOT NULL OR item IS NULL)')).toBe(0);
    expect(count(db, 'appointments', 'WHERE datefrom > dateto')).toBe(0);
  });

  it('has items JSON on transactions and contracts', () => {
    for (const r of rows(db, 'transactions')) {
      if (r.items === null) continue;
      const lines = JSON.parse(r.items as string) as { type: number }[];
      expect(Array.isArray(lines)).toBe(true);
      expect(lines.every((l) => [0, 1, 2].includes(l.type))).toBe(true);
    }
    expect(count(db, 'contracts', 'WHERE contractitems IS NOT NULL')).toBeGreaterThan(0);
  });

  it('holds the awkward values exports are tested with', () => {
    const text = (family: string, column: string): string[] => db.prepare(`SELECT ${q(column)} FROM ${table('demo', family)}`).pluck().all() as string[];
    const names = text('accounts', 'lastname');
    for (const ch of ['"', ',', ';', "'"]) expect(names.some((n) => n.includes(ch)), ch).toBe(true);
    expect(names.some((n) => /[^\x00-\x7f]/.test(n))).toBe(true);
    expect(text('accounts', 'description').some((d) => d.includes('\n'))).toBe(true);
    expect(text('contacts', 'city').some((c) => /[^\x00-\x7f]/.test(c))).toBe(true);
    expect(text('contacts', 'country').every((c) => /^([A-Z]{2})?$/.test(c))).toBe(true);
    expect(text('contacts', 'email').every((e) => e === '' || /^[^@\s]+@[^@\s]+\.[a-z]+$/.test(e))).toBe(true);
  });

  it('assigns creators and assignees from the seeded users', () => {
    const users = new Set(rows(db, 'users').map((u) => u.ID));
    for (const f of ['accounts', 'tickets', 'tasks']) {
      for (const r of rows(db, f)) {
        expect(users.has(r.creator)).toBe(true);
        if (r.assigneduser !== null) expect(users.has(r.assigneduser)).toBe(true);
      }
    }
  });
});

describe('seeded accounts through the API', () => {
  const s = useTestSandbox({ now: () => NOW * 1000 });

  it('reads back every seeded account with GET', async () => {
    const accounts = rows(s.sandbox.db, 'accounts');
    expect(accounts.length).toBe(DEMO_ACCOUNTS);
    for (const a of accounts) {
      const r = await s.call('GET', `api/v1/accounts/${String(a.ID)}`);
      expect(r.status, r.text).toBe(200);
      const body = r.json<Record<string, unknown>>();
      expect(body.ID).toBe(a.ID);
      expect(body.lastname).toBe(a.lastname);
      expect(body.contact).toBe(a.contact);
    }
  });
});

describe('a bulk seed', () => {
  it('makes 2,000 accounts, each with one contact and one address', () => {
    const db = seeded(2000);
    try {
      expect(count(db, 'accounts')).toBe(2000);
      expect(count(db, 'contacts')).toBe(2000);
      expect(count(db, 'addresses')).toBe(2000);
      expect(count(db, 'addresses', `WHERE account NOT IN (SELECT "ID" FROM ${table('demo', 'accounts')})`)).toBe(0);
      expect(db.prepare('PRAGMA foreign_key_check').all()).toEqual([]);
    } finally {
      db.close();
    }
  });
});
