/**
 * Visibility of related records: a record the caller may not see (owned by a
 * group they are not in, or by another user) reads as if it did not exist,
 * whether it is reached by ID or through a dotted path of another family, and
 * a write cannot refer to it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/sandbox.js';
/** An account owned by the Administrators group: only admins see it. */
let hidden: number;
/** An account owned by the Staff group: staff and admins see it. */
let staffOnly: number;
/** A public action step of each account. */
let stepOfHidden: number;
let stepOfStaffOnly: number;
/** An account ID that does not exist, to compare the answers with. */
const NO_SUCH_ACCOUNT = 999_999;

async function put(family: string, body: Record<string, unknown>, token = s.token('demo')): Promise<number> {
  const r = await s.call('PUT', `api/v1/${family}`, { token, json: body });
  expect(r.status, r.text).toBe(201);
  return r.json<{ ID: number }>().ID;
}

async function query(user: string, family: string, body: Record<string, unknown>): Promise<unknown> {
  const r = await s.call('POST', `api/v1/${family}`, { token: s.token(user), json: body });
  expect(r.status, r.text).toBe(200);
  return r.json();
}

const s = useTestSandbox();

beforeAll(async () => {
  const administrators = 1; // seeded groups: 1 Administrators, 2 Staff, 3 Readers, 4 Field service
  hidden = await put('accounts', { lastname: 'Hidden Holdings', taxid: 'DE-SECRET-1', currency: 'EUR', ownergroup: administrators });
  staffOnly = await put('accounts', { lastname: 'Staff Partners', taxid: 'DE-STAFF-2', currency: 'EUR', ownergroup: 2 });
  stepOfHidden = await put('actionsteps', { name: 'Call the hidden account', account: hidden });
  stepOfStaffOnly = await put('actionsteps', { name: 'Call the staff account', account: staffOnly });
});

describe('related records through dotted paths', () => {
  it('the hidden account itself is 404 for reader and staff', async () => {
    for (const user of ['reader', 'staff']) {
      expect((await s.call('GET', `api/v1/accounts/${hidden}`, { token: s.token(user) })).status).toBe(404);
    }
  });

  it('selected fields of a hidden related record read as null, as if it did not exist', async () => {
    const fields = ['ID', 'account', 'account.lastname', 'account.taxid'];
    const filter = { ID: { in: [stepOfHidden, stepOfStaffOnly] } };
    expect(await query('reader', 'actionsteps', { filter, fields })).toEqual([
      { ID: stepOfHidden, account: hidden, 'account.lastname': null, 'account.taxid': null },
      { ID: stepOfStaffOnly, account: staffOnly, 'account.lastname': null, 'account.taxid': null },
    ]);
    expect(await query('staff', 'actionsteps', { filter, fields })).toEqual([
      { ID: stepOfHidden, account: hidden, 'account.lastname': null, 'account.taxid': null },
      { ID: stepOfStaffOnly, account: staffOnly, 'account.lastname': 'Staff Partners', 'account.taxid': 'DE-STAFF-2' },
    ]);
    expect(await query('demo', 'actionsteps', { filter, fields: ['account.taxid'] })).toEqual([
      { 'account.taxid': 'DE-SECRET-1' },
      { 'account.taxid': 'DE-STAFF-2' },
    ]);
  });

  it('a filter on a hidden related record matches nothing (no yes/no oracle), for rows and counts', async () => {
    const exact = { 'account.taxid': 'DE-SECRET-1' };
    const prefix = { 'account.lastname': { '~~': 'Hidden%' } };
    for (const filter of [exact, prefix, { 'account.taxid': { '!=': 'no such id' }, ID: stepOfHidden }]) {
      expect(await query('reader', 'actionsteps', { filter, fields: ['ID'] })).toEqual([]);
      expect(await query('staff', 'actionsteps', { filter, count: true })).toEqual({ count: 0 });
    }
    expect(await query('demo', 'actionsteps', { filter: exact, fields: ['ID'] })).toEqual([{ ID: stepOfHidden }]);
  });

  it('the hidden related row is also null for sort and distinct', async () => {
    const distinct = await query('reader', 'actionsteps', { fields: ['account.taxid'], distinct: true, limit: 1000 });
    expect(JSON.stringify(distinct)).not.toContain('DE-SECRET');
    const sorted = (await query('staff', 'actionsteps', {
      filter: { ID: { in: [stepOfHidden, stepOfStaffOnly] } },
      fields: ['ID', 'account.lastname'],
      sort: ['account.lastname'],
    })) as { ID: number }[];
    // NULLs sort last: the hidden account's step comes after the visible one.
    expect(sorted.map((r) => r.ID)).toEqual([stepOfStaffOnly, stepOfHidden]);
  });

  it('a private contact behind an account reads as null for others, and as itself for its owner', async () => {
    const owner = s.user('staff').id;
    const contact = await put('contacts', { lastname: 'Private Person', city: 'Geheimstadt', owneruser: owner }, s.token('staff'));
    const account = await put('accounts', { lastname: 'Public With Private Contact', currency: 'EUR', contact });
    const body = { filter: { ID: account }, fields: ['contact', 'contact.city'] };
    expect(await query('reader', 'accounts', body)).toEqual([{ contact, 'contact.city': null }]);
    expect(await query('staff', 'accounts', body)).toEqual([{ contact, 'contact.city': 'Geheimstadt' }]);
  });
});

describe('references to records the caller cannot see', () => {
  async function refused(method: 'PUT' | 'PATCH', path: string, body: Record<string, unknown>): Promise<string> {
    const r = await s.call(method, path, { token: s.token('staff'), json: body });
    expect(r.status, r.text).toBe(400);
    return r.text;
  }

  it('create answers exactly as for an account that does not exist', async () => {
    const missing = await refused('PUT', 'api/v1/actionsteps', { name: 'x', account: NO_SUCH_ACCOUNT });
    const invisible = await refused('PUT', 'api/v1/actionsteps', { name: 'x', account: hidden });
    expect(missing).toBe(`invalid actionsteps record: field 'account' refers to accounts ${NO_SUCH_ACCOUNT}, which does not exist`);
    expect(invisible).toBe(`invalid actionsteps record: field 'account' refers to accounts ${hidden}, which does not exist`);
  });

  it('update answers the same, and the record keeps its reference', async () => {
    const mine = await put('actionsteps', { name: 'mine', account: staffOnly }, s.token('staff'));
    const text = await refused('PATCH', `api/v1/actionsteps/${mine}`, { account: hidden });
    expect(text).toBe(`invalid actionsteps record: field 'account' refers to accounts ${hidden}, which does not exist`);
    const after = await s.call('GET', `api/v1/actionsteps/${mine}`, { token: s.token('staff') });
    expect(after.json()).toMatchObject({ account: staffOnly });
  });

  it('a reference the caller can see is accepted, and admins may refer to any record', async () => {
    await put('actionsteps', { name: 'visible to staff', account: staffOnly }, s.token('staff'));
    await put('actionsteps', { name: 'admin links', account: hidden }, s.token('demo'));
  });
});
