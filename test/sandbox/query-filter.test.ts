import { beforeAll, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/sandbox.js';
import { createQueryFixture, query, queryForm, rows, type QueryFixture } from './query-fixture.js';
let fx: QueryFixture;

const s = useTestSandbox();

beforeAll(async () => {
  fx = await createQueryFixture(s);
});

/** Short names of this file's accounts among the results, in result order (other records are ignored). */
function mine(records: Record<string, unknown>[]): string[] {
  const byId = new Map(Object.entries(fx.accounts).map(([k, v]) => [v, k]));
  return records.map((r) => byId.get(r.ID as number)).filter((n): n is string => n !== undefined);
}

async function accounts(filter: unknown): Promise<string[]> {
  return mine(await rows(s, 'accounts', { filter, fields: ['ID'], limit: 10000 }));
}

/** A form query from name=value pairs written unencoded ('&' between pairs, the last '=' ends the name). */
async function formAccounts(pairs: string): Promise<string[]> {
  const form = new URLSearchParams(pairs.split('&').map((p) => [p.slice(0, p.lastIndexOf('=')), p.slice(p.lastIndexOf('=') + 1)] as [string, string]));
  const r = await queryForm(s, 'accounts', `${form.toString()}&fields[]=ID&limit=10000`);
  expect(r.status, r.text).toBe(200);
  return mine(r.json());
}

describe('query filter: comparison operators', () => {
  it('compares strings with = != <> < <= > >=', async () => {
    expect(await accounts({ lastname: 'Beta AG' })).toEqual(['beta']);
    expect(await accounts({ lastname: { '=': 'Beta AG' } })).toEqual(['beta']);
    expect(await accounts({ lastname: { '!=': 'Beta AG' } })).toEqual(['alpha', 'gamma', 'delta', 'epsilon', 'zeta']);
    expect(await accounts({ lastname: { '<>': 'Beta AG' } })).toEqual(['alpha', 'gamma', 'delta', 'epsilon', 'zeta']);
    expect(await accounts({ customernum: { '<': 'K-200' } })).toEqual(['alpha', 'gamma', 'delta', 'epsilon']);
    expect(await accounts({ customernum: { '<=': 'K-200', '>': 'K-100' } })).toEqual(['beta']);
    expect(await accounts({ customernum: { '>=': 'K-200' } })).toEqual(['beta', 'zeta']);
  });

  it('compares numbers, with numeric strings coerced by the field type', async () => {
    expect(await accounts({ type: 1 })).toEqual(['alpha', 'beta', 'zeta']);
    expect(await accounts({ type: '1' })).toEqual(['alpha', 'beta', 'zeta']);
    expect(await accounts({ type: { '>': 1, '<=': 4 } })).toEqual(['gamma', 'epsilon']);
    expect(await accounts({ type: { '>=': 4 } })).toEqual(['epsilon']);
    expect(await accounts({ type: { '<': 1 } })).toEqual(['delta']);
    expect(await accounts({ type: { '!=': 1 } })).toEqual(['gamma', 'delta', 'epsilon']);
    expect(await accounts({ locked: true })).toEqual(['epsilon']);
  });

  it('compares doubles', async () => {
    const names = async (filter: unknown): Promise<number[]> =>
      (await rows(s, 'contracts', { filter, fields: ['ID'], limit: 10000 })).map((r) => r.ID as number).filter((id) => Object.values(fx.contracts).includes(id));
    expect(await names({ exchangerate: { '>': 1 } })).toEqual([fx.contracts.mid, fx.contracts.high]);
    expect(await names({ exchangerate: '1.25' })).toEqual([fx.contracts.mid]);
    expect(await names({ exchangerate: { '<': '1.0' } })).toEqual([fx.contracts.low]);
  });

  it('treats = null as IS NULL and != null as IS NOT NULL; other comparisons never match NULL', async () => {
    expect(await accounts({ contact: null })).toEqual(['delta']);
    expect(await accounts({ contact: { '=': null } })).toEqual(['delta']);
    expect(await accounts({ contact: { '!=': null } })).toEqual(['alpha', 'beta', 'gamma', 'epsilon', 'zeta']);
    expect(await accounts({ contact: { '<>': null } })).toEqual(['alpha', 'beta', 'gamma', 'epsilon', 'zeta']);
    // PostgreSQL: NULL != x is not true, so the account without a contact is not listed.
    expect(await accounts({ contact: { '!=': fx.contacts.berlin } })).toEqual(['beta', 'gamma', 'zeta']);
    expect(await accounts({ contact: { '!IN': [fx.contacts.berlin] } })).toEqual(['beta', 'gamma', 'zeta']);
    expect(await accounts({ contact: { '<': null } })).toEqual([]);
  });

  it('tells null, empty and missing apart', async () => {
    expect(await accounts({ taxid: '' })).toEqual(['zeta']);
    expect(await accounts({ taxid: null })).toEqual([]);
  });

  it('takes IN and !IN lists (and a plain array as IN)', async () => {
    expect(await accounts({ type: { IN: [2, 4] } })).toEqual(['gamma', 'epsilon']);
    expect(await accounts({ type: { in: ['2', '4'] } })).toEqual(['gamma', 'epsilon']);
    expect(await accounts({ type: [0, 2] })).toEqual(['gamma', 'delta']);
    expect(await accounts({ lastname: { IN: ['Beta AG', 'zeta kg', 'nobody'] } })).toEqual(['beta', 'zeta']);
    expect(await accounts({ lastname: { '!IN': ['Beta AG', 'zeta kg'] }, taxid: { '~~': 'QT-%' } })).toEqual(['alpha', 'gamma', 'delta', 'epsilon']);
    expect(await accounts({ type: { IN: [] } })).toEqual([]);
  });
});

describe('query filter: patterns', () => {
  it('matches regular expressions with ~ ~* !~ !~*', async () => {
    expect(await accounts({ lastname: { '~': '^[AB]' } })).toEqual(['alpha', 'beta']);
    expect(await accounts({ lastname: { '~': '^z' } })).toEqual(['zeta']);
    expect(await accounts({ lastname: { '~*': '^Z' } })).toEqual(['zeta']);
    expect(await accounts({ lastname: { '!~': 'a' } })).toEqual(['epsilon']);
    expect(await accounts({ lastname: { '!~*': 'A' } })).toEqual(['epsilon']);
    expect(await accounts({ lastname: { '!~': 'A' } })).toEqual(['gamma', 'delta', 'epsilon', 'zeta']);
  });

  it('matches LIKE patterns with ~~ ~~* !~~ !~~*, % and _ and escapes', async () => {
    expect(await accounts({ lastname: { '~~': '%AG' } })).toEqual(['beta']);
    expect(await accounts({ lastname: { '~~': 'Gamma\\_50\\%' } })).toEqual(['gamma']);
    expect(await accounts({ customernum: { '~~': 'K-_00' } })).toEqual(['alpha', 'beta', 'zeta']);
    expect(await accounts({ lastname: { '~~*': 'ZETA%' } })).toEqual(['zeta']);
    expect(await accounts({ lastname: { '~~': 'ZETA%' } })).toEqual([]);
    expect(await accounts({ taxid: { '!~~': 'QT-%' } })).toEqual(['zeta']);
    expect(await accounts({ lastname: { '!~~*': '%a%' }, taxid: { '~~': 'QT-%' } })).toEqual(['epsilon']);
  });

  it('ignores case in a Unicode-aware way', async () => {
    expect(await accounts({ lastname: { '~~*': 'münchen%' } })).toEqual(['delta']);
    expect(await accounts({ lastname: { '~~': 'münchen%' } })).toEqual([]);
    expect(await accounts({ lastname: { '~*': '^münchen' } })).toEqual(['delta']);
    expect(await accounts({ firstname: { '~~*': 'émile' } })).toEqual(['epsilon']);
    expect(await accounts({ firstname: { '~*': '^É' } })).toEqual(['epsilon']);
  });

  it('combines several operators on one field with AND', async () => {
    expect(await accounts({ lastname: { '~~*': '%a%', '!~': ' ', '!=': 'Epsilon' } })).toEqual(['gamma']);
  });
});

describe('query filter: composites', () => {
  it('takes AND, OR and NOT as the whole filter', async () => {
    expect(await accounts(['OR', { lastname: 'Beta AG' }, { type: 2 }])).toEqual(['beta', 'gamma']);
    expect(await accounts(['AND', { type: 1 }, { customernum: { '>': 'K-100' } }])).toEqual(['beta', 'zeta']);
    expect(await accounts(['and', { type: 1 }, { customernum: 'K-300' }])).toEqual(['zeta']);
    const notType1 = await accounts(['NOT', { type: 1 }]);
    expect(notType1).toEqual(['gamma', 'delta', 'epsilon']);
    // NOT of several conditions negates their conjunction.
    expect(await accounts(['NOT', { type: 1 }, { customernum: 'K-100' }])).toEqual(['beta', 'gamma', 'delta', 'epsilon', 'zeta']);
  });

  it('takes composites under numeric keys beside field conditions', async () => {
    expect(await accounts({ type: 1, 0: ['OR', { customernum: 'K-100' }, { customernum: 'K-300' }] })).toEqual(['alpha', 'zeta']);
    expect(await accounts({ 0: ['OR', { type: 2 }, { type: 4 }], 1: ['NOT', { locked: 1 }] })).toEqual(['gamma']);
  });

  it('nests composites', async () => {
    const filter = ['OR', ['AND', { type: 1 }, ['NOT', { customernum: { IN: ['K-100', 'K-200'] } }]], { lastname: { '~': '^Gam' } }];
    expect(await accounts(filter)).toEqual(['gamma', 'zeta']);
    expect(await accounts(['AND', { 0: ['OR', { type: 0 }, { type: 4 }] }, ['NOT', { locked: 1 }]])).toEqual(['delta']);
  });

  it('keeps PostgreSQL NULL logic under NOT', async () => {
    // contact = x is NULL for the account without a contact, and NOT NULL is still not true.
    expect(await accounts(['NOT', { contact: fx.contacts.berlin }])).toEqual(['beta', 'gamma', 'zeta']);
  });
});

describe('query filter: spellings', () => {
  it("accepts 'filters' as well as 'filter'", async () => {
    expect(mine(await rows(s, 'accounts', { filters: { lastname: 'Beta AG' }, fields: ['ID'] }))).toEqual(['beta']);
  });

  it('accepts form-encoded filters, operators, lists and composites', async () => {
    expect(await formAccounts('filter[lastname][~]=^B')).toEqual(['beta']);
    expect(await formAccounts('filters[type]=2')).toEqual(['gamma']);
    expect(await formAccounts('filter[type][IN][]=2&filter[type][IN][]=4')).toEqual(['gamma', 'epsilon']);
    expect(await formAccounts('filter[type][!IN][0]=1&filter[type][!IN][1]=2&filter[taxid][~~]=QT-%')).toEqual(['delta', 'epsilon']);
    expect(await formAccounts('filter[0][0]=OR&filter[0][1][type]=2&filter[0][2][lastname][~~*]=beta%')).toEqual(['beta', 'gamma']);
    expect(await formAccounts('filter[0][]=NOT&filter[0][][type]=1&filter[taxid][~~]=QT-%')).toEqual(['gamma', 'delta', 'epsilon']);
    // A form cannot send null: an empty value on a numeric field means null.
    expect(await formAccounts('filter[contact][=]=')).toEqual(['delta']);
    expect(await formAccounts('filter[contact][!=]=')).toEqual(['alpha', 'beta', 'gamma', 'epsilon', 'zeta']);
  });

  it('filters through related paths and extension fields', async () => {
    expect(await accounts({ 'contact.city': 'Berlin' })).toEqual(['alpha', 'epsilon']);
    expect(await accounts({ 'contact.city': { '~~*': 'mü%' } })).toEqual(['beta']);
    expect(await accounts({ 'contact.city': { '!=': 'Berlin' } })).toEqual(['beta', 'gamma', 'zeta']);
    expect(await accounts({ 'extdata.tier': 'gold' })).toEqual(['alpha']);
    expect(await accounts({ 'extdata.score': { '>': 6 } })).toEqual(['beta', 'gamma']);
    expect(await accounts({ 'extdata.score': null })).toEqual(['delta', 'epsilon', 'zeta']);
    expect(await formAccounts('filter[extdata.score][>=]=7')).toEqual(['beta', 'gamma']);
    expect(await accounts({ 'extdata.tier': { '~*': '^S' } })).toEqual(['beta']);
  });

  it('counts with a filter', async () => {
    const r = await query(s, 'accounts', { filter: { taxid: { '~': '^QT-[1-3]$' } }, count: true });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ count: 3 });
  });
});
