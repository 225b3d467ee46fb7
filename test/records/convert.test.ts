import { describe, expect, it } from 'vitest';
import { findFamily, type ResourceFamily } from '../../src/catalogue/index.js';
import { applyAssignments, parseAssignment } from '../../src/records/convert.js';
import { parseIsoToUnix } from '../../src/records/timestamp.js';

function family(name: string): ResourceFamily {
  const f = findFamily(name);
  if (!f) throw new Error(name);
  return f;
}
const accounts = family('accounts');
const apply = (args: string[], base = {}, fam = accounts) => applyAssignments(fam, base, args, 'Europe/Berlin');

describe('parseAssignment', () => {
  it('splits field=value and field:=json at the first =', () => {
    expect(parseAssignment('a=b=c')).toEqual({ key: 'a', raw: false, text: 'b=c' });
    expect(parseAssignment('a:=1')).toEqual({ key: 'a', raw: true, text: '1' });
    expect(parseAssignment('+tags=x')).toEqual({ key: '+tags', raw: false, text: 'x' });
  });
  it('refuses a word without =', () => {
    expect(() => parseAssignment('lastname')).toThrow(/write field=value/);
    expect(() => parseAssignment('=x')).toThrow(/write field=value/);
  });
});

describe('applyAssignments', () => {
  it('converts by field type and keeps strings as strings', () => {
    expect(apply(['type=customer', 'customernum=00123', 'locked=true', 'excludetax=0', 'contact=7', 'lastname=Acme'])).toEqual({
      type: 1,
      customernum: '00123',
      locked: 1,
      excludetax: 0,
      contact: 7,
      lastname: 'Acme',
    });
  });
  it('takes raw JSON with :=, and null for an empty nullable number', () => {
    expect(apply(['contact:=null', 'lastname:="x"', 'assigneduser='])).toEqual({ contact: null, lastname: 'x', assigneduser: null });
  });
  it('reads ISO dates in the zone, with or without an offset, and Unix seconds', () => {
    const tasks = family('tasks');
    expect(apply(['duedate=2026-05-01'], {}, tasks)).toEqual({ duedate: Date.UTC(2026, 3, 30, 22) / 1000 });
    expect(apply(['duedate=2026-01-15T10:30'], {}, tasks)).toEqual({ duedate: Date.UTC(2026, 0, 15, 9, 30) / 1000 });
    expect(apply(['duedate=2026-01-15T10:30:00Z'], {}, tasks)).toEqual({ duedate: Date.UTC(2026, 0, 15, 10, 30) / 1000 });
    expect(apply(['duedate=1700000000'], {}, tasks)).toEqual({ duedate: 1700000000 });
    expect(() => apply(['duedate=tomorrow'], {}, tasks)).toThrow(/takes a date \(2026-05-01\)/);
  });
  it('names the valid enum names for an unknown one', () => {
    expect(() => apply(['type=client'])).toThrow("unknown value 'client' for accounts.type; use one of PROSPECT, CUSTOMER, SUPPLIER");
  });
  it('refuses text for numbers and flags', () => {
    expect(() => apply(['contact=abc'])).toThrow(/accounts.contact takes a whole number/);
    expect(() => apply(['locked=maybe'])).toThrow(/is a flag; use 0, 1, true or false/);
  });
  it('builds extdata and tags pseudo fields; arguments override --data', () => {
    expect(apply(['extdata.color=red', 'extdata.size:=3', 'extdata.old:=null', 'tags=a, b', '+tags=c', '-tags=d', 'lastname=B'], { lastname: 'A', extdata: { keep: 1 } })).toEqual({
      lastname: 'B',
      extdata: { keep: 1, color: 'red', size: 3, old: null },
      tags: ['a', 'b'],
      '+tags': ['c'],
      '-tags': ['d'],
    });
  });
  it('keeps unknown fields for validation to name', () => {
    expect(apply(['lastnme=x'])).toEqual({ lastnme: 'x' });
  });
});

describe('parseIsoToUnix', () => {
  it('handles daylight saving time and rejects impossible dates', () => {
    expect(parseIsoToUnix('2026-07-01T12:00', 'Europe/Berlin')).toBe(Date.UTC(2026, 6, 1, 10) / 1000);
    expect(parseIsoToUnix('2026-07-01 12:00', 'UTC')).toBe(Date.UTC(2026, 6, 1, 12) / 1000);
    expect(parseIsoToUnix('2026-02-30', 'UTC')).toBeUndefined();
    expect(parseIsoToUnix('2026-07-01T12:00+02:00', 'UTC')).toBe(Date.UTC(2026, 6, 1, 10) / 1000);
  });
});
