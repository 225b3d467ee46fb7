import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/sandbox.js';
let clock = Date.UTC(2026, 10, 22, 9, 0, 0);

const s = useTestSandbox({ now: () => clock, instances: ['demo', 'other'] });

interface Account {
  ID: number;
  lastname: string;
  creator: number;
  creationdate: number;
  lastmodified: number;
  type: number;
}

async function createAccount(body: Record<string, unknown> = {}) {
  const r = await s.call('PUT', 'api/v1/accounts', { json: { lastname: 'Conformance AG', currency: 'EUR', ...body } });
  expect(r.status, r.text).toBe(201);
  return { record: r.json<Account>(), etag: String(r.headers.etag) };
}

describe('create (PUT)', () => {
  it('answers 201 with the record, ETag, Last-Modified and Content-Location, applying defaults', async () => {
    const r = await s.call('PUT', 'api/v1/accounts', { json: { lastname: 'Nordwind GmbH', currency: 'EUR', type: 1, customernum: 'C-1' } });
    expect(r.status).toBe(201);
    const a = r.json<Account & Record<string, unknown>>();
    expect(a).toMatchObject({ lastname: 'Nordwind GmbH', type: 1, visibility: 0, locked: 0, description: '', creator: s.user('demo').id });
    expect(a.creationdate).toBe(clock / 1000);
    expect(a.lastmodified).toBe(clock / 1000);
    expect(r.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(r.headers['last-modified']).toBe(new Date(clock).toUTCString());
    expect(r.headers['content-location']).toBe(`/demo/api/v1/accounts/${a.ID}`);
  });

  it('accepts form-encoded bodies and converts their strings by field type', async () => {
    const r = await s.call('PUT', 'api/v1/accounts', { form: 'lastname=Form+%26+Co&currency=CHF&type=2&suppliernum=S-9&locked=1' });
    expect(r.status).toBe(201);
    expect(r.json()).toMatchObject({ lastname: 'Form & Co', type: 2, suppliernum: 'S-9', locked: 1 });
  });

  it('refuses an ID in the body with 409', async () => {
    const r = await s.call('PUT', 'api/v1/accounts', { json: { ID: 5, lastname: 'X', currency: 'EUR' } });
    expect(r.status).toBe(409);
    expect(r.text).toMatch(/ID present/);
  });

  it('names what is wrong with 400, and answers an omitted required column with 500 as the live service does', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ lastname: 'X', currency: 'eur' }, /currency must match \^\[A-Z\]\{3\}\$/],
      [{ lastname: 'X', currency: 'EUR', type: 9 }, /type must be one of 0 PROSPECT/],
      [{ lastname: 'X', currency: 'EUR', type: 2, customernum: 'C-1' }, /customernum is allowed only when type is one of 0, 1, 3, 5/],
      [{ lastname: ' X', currency: 'EUR' }, /lastname must be one line without leading or trailing blanks/],
      [{ lastname: '', firstname: '', currency: 'EUR' }, /lastname or firstname must not be empty/],
      [{ lastname: 'X', currency: 'EUR', colour: 'red' }, /unknown field 'colour' on accounts/],
      [{ lastname: 'X', currency: 'EUR', lastmodified: 5 }, /field 'lastmodified' of accounts is set by the service/],
      [{ lastname: 'X', currency: 'EUR', type: 'big' }, /field 'type' must be an integer/],
      [{ lastname: 'X', currency: 'EUR', contact: 999999 }, /field 'contact' refers to contacts 999999, which does not exist/],
    ];
    for (const [body, message] of cases) {
      const r = await s.call('PUT', 'api/v1/accounts', { json: body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.text).toMatch(message);
    }
    const r = await s.call('PUT', 'api/v1/accounts', { json: { lastname: 'No currency' } });
    expect(r.status).toBe(500);
    expect(r.text).toMatch(/"currency"/);
    const steps = await s.call('PUT', 'api/v1/appointments', { json: { name: 'Late', datefrom: 200, dateto: 100 } });
    expect(steps.status).toBe(400);
    expect(steps.text).toMatch(/datefrom must not be after dateto/);
  });

  it('stores extdata and tags given as pseudo fields', async () => {
    const { record } = await createAccount({ extdata: { region: 'north', score: 7 }, tags: ['vip', 'key'] });
    const r = await s.call('GET', `api/v1/accounts/${record.ID}?extdata=1&tags=1`);
    expect(r.json()).toMatchObject({ extdata: { region: 'north', score: 7 }, tags: ['key', 'vip'] });
  });
});

describe('get (GET) and exists (HEAD)', () => {
  it('returns the record with its ETag, and 304 for a matching If-None-Match or If-Modified-Since', async () => {
    const { record, etag } = await createAccount();
    const r = await s.call('GET', `api/v1/accounts/${record.ID}`);
    expect(r.status).toBe(200);
    expect(r.headers.etag).toBe(etag);
    expect(r.json()).not.toHaveProperty('extdata');
    expect((await s.call('GET', `api/v1/accounts/${record.ID}`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await s.call('GET', `api/v1/accounts/${record.ID}`, { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
    const since = new Date(clock + 1000).toUTCString();
    expect((await s.call('GET', `api/v1/accounts/${record.ID}`, { headers: { 'if-modified-since': since } })).status).toBe(304);
  });

  it('answers HEAD with 204 and the ETag, 304 on a matching tag, 404 when absent', async () => {
    const { record, etag } = await createAccount();
    const head = await s.call('HEAD', `api/v1/accounts/${record.ID}`);
    expect(head.status).toBe(204);
    expect(head.headers.etag).toBe(etag);
    expect(head.text).toBe('');
    expect((await s.call('HEAD', `api/v1/accounts/${record.ID}`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await s.call('HEAD', 'api/v1/accounts/987654')).status).toBe(404);
    const missing = await s.call('GET', 'api/v1/accounts/987654');
    expect(missing.status).toBe(404);
    expect(missing.text).toMatch(/accounts 987654 does not exist/);
  });

  it('expands composite and bin file fields on request', async () => {
    const content = Buffer.from('hello, sandbox').toString('base64');
    const c = await s.call('PUT', 'api/v1/contacts', { json: { lastname: 'Pictured', picbinfile: { content } } });
    expect(c.status, c.text).toBe(201);
    const contact = c.json<{ ID: number; picbinfile: number }>();
    expect(typeof contact.picbinfile).toBe('number');
    const expanded = await s.call('GET', `api/v1/contacts/${contact.ID}?expand=picbinfile`);
    expect(expanded.json<{ picbinfile: { content: string } }>().picbinfile.content).toBe(content);
    const bin = await s.call('GET', `api/v1/binfiles/${contact.picbinfile}`);
    const md5 = createHash('md5').update('hello, sandbox').digest('hex');
    expect(bin.json()).toMatchObject({ size: 14, hash: `\\x${md5}` });
    const bad = await s.call('GET', `api/v1/contacts/${contact.ID}?expand=lastname`);
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/cannot expand 'lastname' on contacts; expandable: picbinfile/);
  });
});

describe('update (PATCH)', () => {
  it('changes only the given fields, resets lastmodified and changes the ETag', async () => {
    const { record, etag } = await createAccount({ description: 'kept' });
    clock += 60_000;
    const r = await s.call('PATCH', `api/v1/accounts/${record.ID}`, { json: { lastname: 'Renamed AG' }, headers: { 'if-match': etag } });
    expect(r.status).toBe(200);
    const a = r.json<Account & { description: string }>();
    expect(a).toMatchObject({ lastname: 'Renamed AG', description: 'kept', creationdate: record.creationdate });
    expect(a.lastmodified).toBe(clock / 1000);
    expect(r.headers.etag).not.toBe(etag);
    // Two writes with the same content still give different tags.
    const again = await s.call('PATCH', `api/v1/accounts/${record.ID}`, { json: { lastname: 'Renamed AG' } });
    expect(again.headers.etag).not.toBe(r.headers.etag);
  });

  it('answers 412 for a stale If-Match or If-Unmodified-Since, and 409 for a body ID that differs', async () => {
    const { record, etag } = await createAccount();
    clock += 60_000;
    await s.call('PATCH', `api/v1/accounts/${record.ID}`, { json: { taxid: 'DE1' } });
    const stale = await s.call('PATCH', `api/v1/accounts/${record.ID}`, { json: { taxid: 'DE2' }, headers: { 'if-match': etag } });
    expect(stale.status).toBe(412);
    const old = new Date(clock - 120_000).toUTCString();
    expect((await s.call('PATCH', `api/v1/accounts/${record.ID}`, { json: { taxid: 'DE3' }, headers: { 'if-unmodified-since': old } })).status).toBe(412);
    const wrongId = await s.call('PATCH', `api/v1/accounts/${record.ID}`, { json: { ID: record.ID + 1, taxid: 'DE4' } });
    expect(wrongId.status).toBe(409);
    const sameId = await s.call('PATCH', `api/v1/accounts/${record.ID}`, { json: { ID: record.ID, taxid: 'DE5' } });
    expect(sameId.status).toBe(200);
    expect((await s.call('PATCH', 'api/v1/accounts/987654', { json: { taxid: 'x' } })).status).toBe(404);
  });

  it('removes extdata keys given as null and adds or removes tags', async () => {
    const { record } = await createAccount({ extdata: { a: 1, b: 2 }, tags: ['one', 'two'] });
    await s.call('PATCH', `api/v1/accounts/${record.ID}`, { json: { extdata: { a: null, c: 'x' }, '+tags': ['three'], '-tags': ['one'] } });
    const r = await s.call('GET', `api/v1/accounts/${record.ID}?extdata=1&tags=1`);
    expect(r.json()).toMatchObject({ extdata: { b: 2, c: 'x' }, tags: ['three', 'two'] });
  });
});

describe('delete (DELETE)', () => {
  it('removes a record with 204, honours If-Match, and refuses one others depend on with 409', async () => {
    const { record, etag } = await createAccount();
    expect((await s.call('DELETE', `api/v1/accounts/${record.ID}`, { headers: { 'if-match': '"stale"' } })).status).toBe(412);
    expect((await s.call('DELETE', `api/v1/accounts/${record.ID}`, { headers: { 'if-match': etag } })).status).toBe(204);
    expect((await s.call('GET', `api/v1/accounts/${record.ID}`)).status).toBe(404);
    expect((await s.call('DELETE', `api/v1/accounts/${record.ID}`)).status).toBe(404);

    const parent = await createAccount();
    const contact = (await s.call('PUT', 'api/v1/contacts', { json: { lastname: 'Dep' } })).json<{ ID: number }>();
    const address = await s.call('PUT', 'api/v1/addresses', { json: { account: parent.record.ID, contact: contact.ID } });
    expect(address.status, address.text).toBe(201);
    const blocked = await s.call('DELETE', `api/v1/accounts/${parent.record.ID}`);
    expect(blocked.status).toBe(409);
    expect(blocked.text).toMatch(/Not Deletable/);
  });
});

describe('access', () => {
  it('answers 401 with WWW-Authenticate without a valid token', async () => {
    for (const token of [null, 'f'.repeat(40)]) {
      const r = await s.call('GET', 'api/v1/config', { token });
      expect(r.status).toBe(401);
      expect(r.headers['www-authenticate']).toBe('Bearer realm="demo"');
    }
  });

  it('answers 403 without the named permission, or its writable form', async () => {
    const { record } = await createAccount();
    const readerWrite = await s.call('PATCH', `api/v1/accounts/${record.ID}`, { token: s.token('reader'), json: { taxid: 'x' } });
    expect(readerWrite.status).toBe(403);
    expect(readerWrite.text).toMatch(/writable 'accounts' permission/);
    expect((await s.call('GET', `api/v1/accounts/${record.ID}`, { token: s.token('reader') })).status).toBe(200);
    const field = await s.call('GET', `api/v1/accounts/${record.ID}`, { token: s.token('field') });
    expect(field.status).toBe(403);
    expect(field.text).toMatch(/'accounts' permission/);
    expect((await s.call('GET', 'api/v1/groups2users/1', { token: s.token('reader') })).status).toBe(403);
    expect((await s.call('GET', 'api/v1/groups2users/1', { token: s.token('demo') })).status).toBe(200);
  });

  it('shows owned records only to their owner, the owning group and admins', async () => {
    const staffGroup = 2; // seeded groups: 1 Administrators, 2 Staff, 3 Readers, 4 Field service
    const { record } = await createAccount({ lastname: 'Staff Only', ownergroup: staffGroup });
    expect((await s.call('GET', `api/v1/accounts/${record.ID}`, { token: s.token('staff') })).status).toBe(200);
    expect((await s.call('GET', `api/v1/accounts/${record.ID}`, { token: s.token('demo') })).status).toBe(200);
    const hidden = await s.call('GET', `api/v1/accounts/${record.ID}`, { token: s.token('reader') });
    expect(hidden.status).toBe(404);
    expect((await s.call('HEAD', `api/v1/accounts/${record.ID}`, { token: s.token('reader') })).status).toBe(404);
    const staff = s.user('staff').id;
    const c = await s.call('PUT', 'api/v1/contacts', { token: s.token('staff'), json: { lastname: 'Private', owneruser: staff } });
    const contact = c.json<{ ID: number }>().ID;
    expect((await s.call('GET', `api/v1/contacts/${contact}`, { token: s.token('staff') })).status).toBe(200);
    expect((await s.call('GET', `api/v1/contacts/${contact}`, { token: s.token('reader') })).status).toBe(404);
    expect((await s.call('PATCH', `api/v1/contacts/${contact}`, { token: s.token('secure'), json: { city: 'x' } })).status).toBe(404);
    // Queries apply the same rule.
    const query = { filter: { ID: record.ID } };
    expect((await s.call('POST', 'api/v1/accounts', { token: s.token('staff'), json: query })).json()).toHaveLength(1);
    expect((await s.call('POST', 'api/v1/accounts', { token: s.token('reader'), json: query })).json()).toEqual([]);
    expect((await s.call('POST', 'api/v1/accounts', { token: s.token('reader'), json: { ...query, count: true } })).json()).toEqual({ count: 0 });
  });

  it('lets only the creator change a record of a creator-only family', async () => {
    const record = (await s.call('PUT', 'api/v1/records', { json: { text: 'a note' } })).json<{ ID: number }>();
    const c = await s.call('PUT', 'api/v1/comments', { token: s.token('staff'), json: { record: record.ID, text: 'mine' } });
    expect(c.status, c.text).toBe(201);
    const id = c.json<{ ID: number }>().ID;
    const other = await s.call('PATCH', `api/v1/comments/${id}`, { token: s.token('demo'), json: { text: 'not yours' } });
    expect(other.status).toBe(403);
    expect(other.text).toMatch(/only the creator/);
    expect((await s.call('PATCH', `api/v1/comments/${id}`, { token: s.token('staff'), json: { text: 'edited' } })).status).toBe(200);
  });

  it('refuses writes on read-only families with 405', async () => {
    for (const [method, path] of [['PUT', 'api/v1/users'], ['PATCH', 'api/v1/groups/1'], ['DELETE', 'api/v1/applications/1']]) {
      const r = await s.call(method ?? '', path ?? '', { json: {} });
      expect(r.status, `${method} ${path}`).toBe(405);
    }
  });

  it('serves config and settings', async () => {
    expect((await s.call('GET', 'api/v1/config')).json()).toMatchObject({ instance: 'demo' });
    expect((await s.call('GET', 'api/v1/settings')).status).toBe(200);
  });

  it('keeps instances apart: records, tokens and unknown names', async () => {
    const { record } = await createAccount({ lastname: 'Only In Demo' });
    const r = await s.call('GET', `/other/api/v1/accounts/${record.ID}`, { token: s.token('demo') });
    expect(r.status).toBe(401); // a demo token means nothing to the other instance
    expect((await s.call('GET', '/nowhere/api/v1/accounts/1')).status).toBe(404);
    expect((await s.call('GET', 'api/v1/nosuchfamily/1')).status).toBe(404);
  });
});
