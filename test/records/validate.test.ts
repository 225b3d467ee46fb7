import { describe, expect, it } from 'vitest';
import { findFamily, type ResourceFamily } from '../../src/catalogue/index.js';
import { assertValidBody, validateBody } from '../../src/records/validate.js';

function family(name: string): ResourceFamily {
  const f = findFamily(name);
  if (!f) throw new Error(name);
  return f;
}
const accounts = family('accounts');
const ok = { lastname: 'Acme', currency: 'EUR' };
const first = (name: string, body: Record<string, unknown>, mode: 'create' | 'update' = 'create') => validateBody(family(name), body, mode)[0];

describe('validateBody', () => {
  it('accepts a good body', () => {
    expect(validateBody(accounts, { ...ok, type: 1, customernum: '00123', extdata: { a: 1 }, tags: ['x'] }, 'create')).toEqual([]);
    expect(validateBody(accounts, { description: 'two\nlines' }, 'update')).toEqual([]);
  });
  it('names unknown fields with a did-you-mean, and read-only ones', () => {
    expect(first('accounts', { ...ok, lastnme: 'x' })).toBe("unknown field 'lastnme' on accounts; did you mean 'lastname'?");
    expect(first('accounts', { ...ok, ID: 3 })).toMatch(/^ID cannot be given on create/);
    expect(first('accounts', { lastmodified: 3 }, 'update')).toMatch(/accounts.lastmodified is read-only/);
    expect(first('users', { name: 'x' })).toMatch(/users is restricted read-only; it cannot be created/);
  });
  it('checks types, enums, patterns, bounds, lengths and text rules', () => {
    expect(first('accounts', { ...ok, contact: 'x' })).toMatch(/accounts.contact takes a whole number/);
    expect(first('accounts', { ...ok, customernum: 123 })).toMatch(/accounts.customernum takes text, not 123; quote it/);
    expect(first('accounts', { ...ok, type: 9 })).toMatch(/accounts.type does not take 9; use one of PROSPECT \(0\), CUSTOMER \(1\)/);
    expect(first('accounts', { ...ok, currency: 'eur' })).toMatch(/accounts.currency must match \^\[A-Z\]\{3\}\$, not 'eur'/);
    expect(first('appointments', { interval: 0 }, 'update')).toBe('appointments.interval must be at least 1, not 0');
    expect(first('contracts', { exchangerate: 0 }, 'update')).toBe('contracts.exchangerate must be greater than 0, not 0');
    expect(first('items', { unit: 'ABCD' }, 'update')).toBe('items.unit has 4 characters; at most 3 are allowed');
    expect(first('tasks', { name: '' }, 'update')).toBe('tasks.name cannot be empty; give it a value');
    expect(first('accounts', { ...ok, lastname: ' Acme' })).toMatch(/accounts.lastname cannot start or end with blanks/);
    expect(first('accounts', { ...ok, lastname: 'Ac\nme' })).toMatch(/accounts.lastname must be one line/);
    expect(first('accounts', { ...ok, description: 'x ' })).toMatch(/accounts.description cannot start or end with blanks/);
    expect(first('accounts', { ...ok, currency: null })).toMatch(/accounts.currency cannot be null/);
    expect(first('contacts', { type: 2147483648 }, 'update')).toMatch(/out of range/);
    expect(first('accounts', { ...ok, tags: 'x' })).toMatch(/tags on accounts takes a list of tags/);
    // A number past a double (worstcase=1e400 parses to Infinity): named as out of range, not as null.
    expect(first('opportunities', { worstcase: Number('1e400') }, 'update')).toBe('opportunities.worstcase is out of range: it is beyond what a number can hold (about ±1.8e308)');
  });
  it('names required fields on create only', () => {
    expect(first('accounts', { lastname: 'Acme' })).toBe('accounts needs currency (ISO 4217 code, e.g. EUR); add currency=EUR');
    expect(first('accounts', { lastname: 'Acme' }, 'update')).toBeUndefined();
  });
  it('checks the cross-field rules as far as the fields given decide them', () => {
    expect(first('accounts', { currency: 'EUR' })).toMatch(/accounts needs lastname or firstname not empty/);
    expect(first('accounts', { lastname: '', firstname: '' }, 'update')).toMatch(/lastname or firstname/);
    expect(first('accounts', { firstname: '' }, 'update')).toBeUndefined();
    expect(first('accounts', { ...ok, type: 2, customernum: 'C-1' })).toBe(
      'accounts.customernum is allowed only when type is PROSPECT, CUSTOMER, CUSTOMERANDSUPPLIER, EMPLOYEE (it is SUPPLIER); set type or leave customernum out',
    );
    expect(first('accounts', { ...ok, suppliernum: 'S-1' })).toMatch(/suppliernum is allowed only when type is SUPPLIER/);
    expect(first('accounts', { suppliernum: 'S-1' }, 'update')).toBeUndefined();
    expect(first('contacts', { lastname: 'x', owneruser: 1, ownergroup: 2 })).toMatch(/contacts takes at most one of owneruser and ownergroup/);
    expect(first('actionsteps', { name: 'x', task: 1, account: 2 })).toMatch(/at most one of task, ticket and account, not task and account/);
    expect(first('appointments', { name: 'x', datefrom: 20, dateto: 10 })).toMatch(/appointments.datefrom must not be after dateto/);
    expect(first('appointments', { datefrom: 20 }, 'update')).toBeUndefined();
    expect(first('components', { item: 3, component: 3 }, 'update')).toMatch(/item and component must differ/);
    expect(first('files', {})).toMatch(/needs exactly one of record and comment|files needs/);
  });
  it('throws the first problem as a usage error', () => {
    expect(() => assertValidBody(accounts, { lastname: 'x' }, 'create')).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});
