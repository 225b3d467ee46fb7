import { request } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/sandbox.js';
import { createQueryFixture, query, queryForm, rejected, rows, type QueryFixture } from './query-fixture.js';
let fx: QueryFixture;

const s = useTestSandbox();

beforeAll(async () => {
  fx = await createQueryFixture(s);
});

describe('query: 400 for a malformed request, naming the problem', () => {
  it('rejects filter and filters together', async () => {
    expect(await rejected(s, 'accounts', { filter: { type: 1 }, filters: { type: 2 } })).toMatch(/either 'filter' or 'filters'/);
  });

  it('rejects unknown fields and paths, naming the family', async () => {
    expect(await rejected(s, 'accounts', { filter: { nope: 1 } })).toContain("unknown field 'nope' on accounts");
    expect(await rejected(s, 'accounts', { filter: { lastnme: 'x' } })).toMatch(/unknown field 'lastnme' on accounts; did you mean 'lastname'/);
    expect(await rejected(s, 'accounts', { fields: ['ID', 'nope'] })).toContain("unknown field 'nope' on accounts");
    expect(await rejected(s, 'accounts', { sort: ['-nope'] })).toContain("unknown field 'nope' on accounts");
    expect(await rejected(s, 'accounts', { filter: { 'contact.nope': 1 } })).toMatch(/unknown field 'contact\.nope' on accounts \(contacts has no field 'nope'\)/);
    expect(await rejected(s, 'accounts', { filter: { 'nope.city': 1 } })).toContain("unknown field 'nope.city' on accounts");
    expect(await rejected(s, 'accounts', { fields: ['lastname.city'] })).toMatch(/'lastname\.city' on accounts: 'lastname' does not refer to another family/);
    expect(await rejected(s, 'accounts', { fields: ['contact.owneruser.name'] })).toMatch(/only first-degree paths/);
    expect(await rejected(s, 'accounts', { fields: ['extdata.'] })).toMatch(/names no extension field/);
  });

  it('rejects filtering and sorting on composite or unstored fields', async () => {
    expect(await rejected(s, 'contracts', { filter: { contractitems: '[]' } })).toMatch(/'contractitems' on contracts is a composite \(items\) field and cannot be filtered/);
    expect(await rejected(s, 'contracts', { sort: ['autobilling'] })).toMatch(/'autobilling' on contracts is a composite \(json\) field and cannot be sorted/);
    expect(await rejected(s, 'contracts', { filter: { calculation: 0 } })).toMatch(/'calculation' on contracts is not stored/);
  });

  it('rejects values that do not fit the field type', async () => {
    expect(await rejected(s, 'accounts', { filter: { type: 'abc' } })).toMatch(/filter on 'type' of accounts: "abc" is not an integer/);
    expect(await rejected(s, 'accounts', { filter: { type: { IN: [1, 'x'] } } })).toMatch(/'type' of accounts: "x" is not an integer/);
    expect(await rejected(s, 'accounts', { filter: { 'contact.type': 1.5 } })).toMatch(/'contact\.type' of accounts: 1\.5 is not an integer/);
    expect(await rejected(s, 'contracts', { filter: { exchangerate: 'one' } })).toMatch(/'exchangerate' of contracts: "one" is not a number/);
    expect(await rejected(s, 'accounts', { filter: { lastname: { '=': { deep: 1 } } } })).toMatch(/'lastname' of accounts: .* is not a single value/);
    const r = await queryForm(s, 'accounts', 'filter[type]=abc');
    expect(r.status).toBe(400);
    expect(r.text).toContain("'type'");
  });

  it('names a number JSON overflows to Infinity (1e400) as not finite, not as null', async () => {
    const raw = async (body: string, family = 'accounts') => {
      const res = await request(`${s.instanceUrl}/api/v1/${family}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${s.token()}` }, body });
      return { status: res.statusCode, text: await res.body.text() };
    };
    const notFinite = (path: string, family: string, value: string): string =>
      `filter on '${path}' of ${family}: ${value} is not a finite number (a JSON number beyond ±1.8e308, such as 1e400, overflows to it); send a finite value`;
    expect(await raw('{"filter": {"ID": 1e400}}')).toEqual({ status: 400, text: notFinite('ID', 'accounts', 'Infinity') });
    expect(await raw('{"filter": {"exchangerate": {"<": -1e400}}}', 'contracts')).toEqual({ status: 400, text: notFinite('exchangerate', 'contracts', '-Infinity') });
    expect(await raw('{"filter": {"lastname": {"IN": ["x", 1e400]}}}')).toEqual({ status: 400, text: notFinite('lastname', 'accounts', 'Infinity') });
    expect(await raw('{"offset": 1e400}')).toEqual({ status: 400, text: "parameter 'offset' must be an integer >= 0, not Infinity" });
  });

  it('rejects bad operators, patterns and composites', async () => {
    expect(await rejected(s, 'accounts', { filter: { lastname: { '=~': 'x' } } })).toMatch(/unknown filter operator '=~' on 'lastname'/);
    expect(await rejected(s, 'accounts', { filter: { lastname: { '~': '(' } } })).toMatch(/invalid regular expression '\('/);
    expect(await rejected(s, 'accounts', { filter: { lastname: { '!~*': '[a-' } } })).toMatch(/invalid regular expression/);
    expect(await rejected(s, 'accounts', { filter: { type: { '~': '1' } } })).toMatch(/operator '~' applies to text fields/);
    expect(await rejected(s, 'accounts', { filter: { type: { '~~': '1%' } } })).toMatch(/operator '~~' applies to text fields/);
    expect(await rejected(s, 'accounts', { filter: { lastname: { '~~': ['a'] } } })).toMatch(/needs a pattern string/);
    expect(await rejected(s, 'accounts', { filter: ['OR'] })).toMatch(/composite 'OR' needs at least one condition/);
    expect(await rejected(s, 'accounts', { filter: { 0: { type: 1 } } })).toMatch(/filter key '0' must hold a composite/);
    expect(await rejected(s, 'accounts', { filter: ['OR', 'type'] })).toMatch(/a filter condition must be an object/);
    expect(await rejected(s, 'accounts', { filter: 'type=1' })).toMatch(/a filter condition must be an object/);
    expect(await rejected(s, 'accounts', { filter: { type: {} } })).toMatch(/empty operator object/);
  });

  it('rejects bad limits, offsets and flags', async () => {
    for (const limit of [0, 10001, 'abc', 1.5, -1]) expect(await rejected(s, 'accounts', { limit })).toMatch(/parameter 'limit' must be an integer from 1 to 10000/);
    for (const offset of [-1, 'x', 0.5]) expect(await rejected(s, 'accounts', { offset })).toMatch(/parameter 'offset' must be an integer >= 0/);
    expect(await rejected(s, 'accounts', { count: 'maybe' })).toMatch(/parameter 'count' must be a boolean/);
    expect(await rejected(s, 'accounts', { distinct: 2 })).toMatch(/parameter 'distinct' must be a boolean/);
    expect((await queryForm(s, 'accounts', 'limit=0')).text).toMatch(/'limit'/);
    expect(await rows(s, 'accounts', { limit: 10000, fields: ['ID'] })).not.toHaveLength(0);
  });

  it('rejects bad expands, fields and parameters', async () => {
    expect(await rejected(s, 'accounts', { expand: ['lastname'] })).toMatch(/cannot expand 'lastname' on accounts; expandable: none/);
    expect(await rejected(s, 'contacts', { expand: ['nope'] })).toMatch(/cannot expand 'nope' on contacts; expandable: picbinfile/);
    expect(await rejected(s, 'accounts', { fields: [] })).toMatch(/parameter 'fields' must be a non-empty/);
    expect(await rejected(s, 'accounts', { fields: [1] })).toMatch(/parameter 'fields' holds 1/);
    expect(await rejected(s, 'accounts', { sort: [5] })).toMatch(/parameter 'sort' must be an array of names/);
    expect(await rejected(s, 'accounts', { sort: ['-'] })).toMatch(/names no field/);
    expect(await rejected(s, 'accounts', [1, 2])).toMatch(/the query body must be an object/);
    expect(await rejected(s, 'accounts', { fields: ['type'], distinct: true, sort: ['lastname'] })).toMatch(/with distinct, sort only by selected fields: 'lastname'/);
  });
});

describe('query: permissions', () => {
  it('needs read permission on the family', async () => {
    const r = await query(s, 'accounts', { fields: ['ID'] }, s.token('field'));
    expect(r.status).toBe(403);
    expect((await query(s, 'contacts', { fields: ['ID'], limit: 1 }, s.token('field'))).status).toBe(200);
  });

  it('needs read permission on a family reached through a related path', async () => {
    const field = s.token('field');
    expect((await query(s, 'contracts', { fields: ['ID', 'name'], limit: 1 }, field)).status).toBe(200);
    const selected = await query(s, 'contracts', { fields: ['ID', 'account.lastname'] }, field);
    expect(selected.status).toBe(403);
    expect(selected.text).toContain('accounts');
    expect((await query(s, 'contracts', { filter: { 'account.type': 1 } }, field)).status).toBe(403);
    expect((await query(s, 'contracts', { fields: ['account.lastname'], filter: { ID: fx.contracts.low } }, s.token('reader'))).json()).toEqual([{ 'account.lastname': 'Alpha GmbH' }]);
  });
});

describe('query: values never reach the SQL text', () => {
  it('treats quotes in values, extension names and paths as data', async () => {
    expect(await rows(s, 'accounts', { filter: { lastname: "x' OR '1'='1" } })).toEqual([]);
    expect(await rows(s, 'accounts', { filter: { lastname: { IN: ['") OR 1=1 --'] } } })).toEqual([]);
    expect(await rows(s, 'accounts', { filter: { 'extdata.a\' OR 1=1 --': 'x' } })).toEqual([]);
    const ext = await rows(s, 'accounts', { filter: { ID: fx.accounts.alpha }, fields: ['extdata."quoted"'] });
    expect(ext).toEqual([{ 'extdata."quoted"': null }]);
    expect(await rejected(s, 'accounts', { fields: ['lastname" FROM x --'] })).toContain('unknown field');
    expect(await rejected(s, 'accounts', { sort: ['ID; DROP TABLE x'] })).toContain('unknown field');
    expect(await rows(s, 'accounts', { filter: { ID: fx.accounts.alpha }, fields: ['ID'] })).toEqual([{ ID: fx.accounts.alpha }]);
  });
});
