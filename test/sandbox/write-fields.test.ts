/**
 * What a create or update body may carry: fields the service sets itself are
 * refused, and the pseudo fields extdata and tags only where the family's
 * write operations offer them. The client's catalogue says the same.
 */
import { describe, expect, it } from 'vitest';
import { findFamily, findField } from '../../src/catalogue/index.js';
import { validateBody } from '../../src/records/validate.js';
import { useTestSandbox } from '../helpers/sandbox.js';

const s = useTestSandbox();

function family(name: string) {
  const f = findFamily(name);
  if (!f) throw new Error(`no family ${name}`);
  return f;
}

async function created(familyName: string, body: Record<string, unknown>, token = s.token('staff')): Promise<Record<string, unknown>> {
  const r = await s.call('PUT', `api/v1/${familyName}`, { token, json: body });
  expect(r.status, r.text).toBe(201);
  return r.json();
}

describe('fields the service sets', () => {
  const SERVICE_SET = ['creator', 'creationdate', 'lastmodified'];

  it('an update of creator, creationdate or lastmodified is refused with 400 naming the field, and nothing changes', async () => {
    const record = await created('records', { text: 'a note' });
    const comment = await created('comments', { record: record.ID, text: 'mine' });
    const other = { creator: s.user('demo').id, creationdate: 1, lastmodified: 1 };
    for (const name of SERVICE_SET) {
      const r = await s.call('PATCH', `api/v1/comments/${String(comment.ID)}`, { token: s.token('staff'), json: { text: 'x', [name]: other[name as keyof typeof other] } });
      expect(r.status, name).toBe(400);
      expect(r.text).toBe(`field '${name}' of comments is set by the service`);
    }
    const after = await s.call('GET', `api/v1/comments/${String(comment.ID)}`, { token: s.token('staff') });
    expect(after.json()).toMatchObject({ creator: s.user('staff').id, creationdate: comment.creationdate, text: 'mine' });
  });

  it('a create carrying them is refused too, in JSON and in a form', async () => {
    for (const name of SERVICE_SET) {
      const json = await s.call('PUT', 'api/v1/accounts', { json: { lastname: 'X', currency: 'EUR', [name]: 1 } });
      expect(json.status, name).toBe(400);
      expect(json.text).toBe(`field '${name}' of accounts is set by the service`);
      const form = await s.call('PUT', 'api/v1/accounts', { form: `lastname=X&currency=EUR&${name}=1` });
      expect(form.status, name).toBe(400);
    }
  });

  it('the catalogue marks them read-only, so svc refuses them before sending', () => {
    for (const name of SERVICE_SET) {
      expect(findField(family('comments'), name)?.writable, name).toBe(false);
      expect(validateBody(family('comments'), { record: 1, [name]: 1 }, 'update')).toEqual([`comments.${name} is read-only (the service sets it); leave it out`]);
    }
    expect(findField(family('comments'), 'text')?.writable).toBe(true);
  });
});

describe('pseudo fields where the write operations offer them', () => {
  const EVENT = { entity: 'accounts', index: 1, name: 'Fair', datefrom: 1_800_000_000, dateto: 1_800_003_600 };

  it('events offer neither extdata nor tags: each is refused with 400 naming it', async () => {
    for (const [key, value] of [['extdata', { a: 1 }], ['tags', ['t']], ['+tags', ['t']], ['-tags', ['t']]] as const) {
      const r = await s.call('PUT', 'api/v1/events', { json: { ...EVENT, [key]: value } });
      expect(r.status, key).toBe(400);
      expect(r.text).toBe(`'${key}' is not offered on events; its create and update take no ${key === 'extdata' ? 'extension data' : 'tags'}`);
    }
    const event = await created('events', EVENT, s.token('demo'));
    const patch = await s.call('PATCH', `api/v1/events/${String(event.ID)}`, { json: { tags: ['t'] } });
    expect(patch.status).toBe(400);
  });

  it('records take tags but not extdata; participants take extdata but not tags; accounts take both', async () => {
    const record = await created('records', { text: 'tagged', tags: ['a', 'b'] });
    const read = await s.call('GET', `api/v1/records/${String(record.ID)}?tags=1`, { token: s.token('staff') });
    expect(read.json()).toMatchObject({ tags: ['a', 'b'] });
    const ext = await s.call('PUT', 'api/v1/records', { token: s.token('staff'), json: { text: 'x', extdata: { a: 1 } } });
    expect(ext.text).toBe("'extdata' is not offered on records; its create and update take no extension data");
    const tags = await s.call('PUT', 'api/v1/participants', { token: s.token('demo'), json: { name: 'P', tags: ['x'] } });
    expect(tags.text).toBe("'tags' is not offered on participants; its create and update take no tags");
    const account = await created('accounts', { lastname: 'Both', currency: 'EUR', extdata: { tier: 'gold' }, tags: ['vip'] });
    const get = await s.call('GET', `api/v1/accounts/${String(account.ID)}?extdata=1&tags=1`, { token: s.token('staff') });
    expect(get.json()).toMatchObject({ extdata: { tier: 'gold' }, tags: ['vip'] });
  });

  it('the catalogue lists the pseudo fields each family writes, and svc checks them before sending', () => {
    expect(family('events').writeParams).toEqual([]);
    expect(family('records').writeParams).toEqual(['tags']);
    expect(family('participants').writeParams).toEqual(['extdata']);
    expect(family('accounts').writeParams).toEqual(['extdata', 'tags']);
    expect(validateBody(family('events'), { ...EVENT, tags: ['t'] }, 'create')).toEqual([
      "events take no tags; leave 'tags' out (see 'svc describe events')",
    ]);
  });
});
