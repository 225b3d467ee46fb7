import { describe, expect, it } from 'vitest';
import { svc, sandboxCli, tempConfigDir } from '../helpers/cli.js';

const harness = sandboxCli();
const run = harness.run;

async function create(family: string, body: Record<string, unknown>, user = 'demo'): Promise<{ ID: number; etag: string }> {
  const r = await harness.sandbox().call('PUT', `api/v1/${family}`, { json: body, token: harness.sandbox().token(user) });
  expect(r.status, r.text).toBe(201);
  return { ID: r.json<{ ID: number }>().ID, etag: String(r.headers.etag) };
}

async function status(family: string, id: number): Promise<number> {
  return (await harness.sandbox().call('GET', `api/v1/${family}/${id}`)).status;
}

describe('svc <family> update', () => {
  it('sends PATCH with the given fields only and shows the updated record', async () => {
    const { ID } = await create('accounts', { lastname: 'Before', currency: 'EUR' });
    const r = await run(['accounts', 'update', String(ID), 'lastname=After', 'extdata.size:=3', '-tags=none']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ID, lastname: 'After', currency: 'EUR' });
    expect(r.stderr).toBe(`updated accounts ${ID}\n`);
    const [patch] = harness.sandbox().sandbox.hooks.requests.filter((x) => x.method === 'PATCH');
    expect(patch?.url).toBe(`/demo/api/v1/accounts/${ID}`);
    expect(patch?.body).toEqual({ lastname: 'After', extdata: { size: 3 }, '-tags': ['none'] });
  });

  it('updates on a terminal, one field a row', async () => {
    const { ID } = await create('tickets', { name: 'Open' });
    const r = await run(['tickets', 'update', String(ID), 'name=Closed'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^name:\s+Closed$/m);
  });

  it('sends If-Match; a stale ETag is exit 5 with the fix, and a current one works', async () => {
    const { ID, etag } = await create('contacts', { lastname: 'Tag' });
    const first = await run(['contacts', 'update', String(ID), 'city=Bonn', '--if-match', etag]);
    expect(first.code, first.stderr).toBe(0);
    const stale = await run(['contacts', 'update', String(ID), 'city=Köln', '--if-match', etag]);
    expect(stale.code).toBe(5);
    expect(stale.stderr).toBe(`svc: the record changed since it was read (ETag ${etag}); get it again and retry\n`);
    const patches = harness.sandbox().sandbox.hooks.requests.filter((x) => x.method === 'PATCH');
    expect(patches.map((p) => p.headers['if-match'])).toEqual([etag, etag]);
  });

  it('is exit 3 for a record that does not exist', async () => {
    const r = await run(['tasks', 'update', '999999', 'name=x']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/tasks 999999 does not exist/);
  });
});

describe('creator-only families (comments)', () => {
  it('lets the creator write and refuses others with exit 4', async () => {
    const records = await harness.sandbox().call('POST', 'api/v1/records', { json: { limit: 1, fields: ['ID'] } });
    const record = records.json<{ ID: number }[]>()[0]?.ID;
    expect(record).toBeDefined();
    const created = await run(['comments', 'create', `record=${record}`, 'text=First'], { user: 'staff' });
    expect(created.code, created.stderr).toBe(0);
    const id = (JSON.parse(created.stdout) as { ID: number }).ID;
    const own = await run(['comments', 'update', String(id), 'text=Edited'], { user: 'staff' });
    expect(own.code, own.stderr).toBe(0);
    const other = await run(['comments', 'update', String(id), 'text=Hijacked'], { user: 'demo' });
    expect(other.code).toBe(4);
    expect(other.stderr).toMatch(/403/);
  });
});

describe('svc <family> delete', () => {
  it('refuses without a terminal and without --yes (exit 2), sending nothing', async () => {
    const { ID } = await create('tasks', { name: 'Keep' });
    harness.sandbox().sandbox.hooks.reset();
    const r = await run(['tasks', 'delete', String(ID)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`svc: delete tasks ${ID} needs confirmation and there is no terminal to ask on; pass --yes\n`);
    expect(harness.sandbox().sandbox.hooks.requests).toEqual([]);
    expect(await status('tasks', ID)).toBe(200);
  });

  it('asks on a terminal: n keeps the record, y deletes it', async () => {
    const { ID } = await create('accounts', { lastname: 'Ask', currency: 'EUR' });
    harness.sandbox().sandbox.hooks.reset();
    const no = await run(['accounts', 'delete', String(ID)], { tty: true, stdin: ['n\n'] });
    expect(no.code).toBe(1);
    expect(no.stderr).toMatch(new RegExp(`^delete accounts ${ID}\\? \\[y/N\\]: `));
    expect(no.stderr).toMatch(/not deleted: accounts \d+ was kept/);
    expect(harness.sandbox().sandbox.hooks.requests).toEqual([]);
    expect(await status('accounts', ID)).toBe(200);
    const yes = await run(['accounts', 'delete', String(ID)], { tty: true, stdin: ['y\n'] });
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.stderr).toMatch(new RegExp(`deleted accounts ${ID}\\n$`));
    expect(await status('accounts', ID)).toBe(404);
  });

  it('deletes with --yes in a script, and supports --if-match', async () => {
    const { ID, etag } = await create('tickets', { name: 'Gone' });
    const stale = await run(['tickets', 'delete', String(ID), '--yes', '--if-match', '"0000"']);
    expect(stale.code).toBe(5);
    expect(stale.stderr).toMatch(/the record changed since it was read \(ETag "0000"\); get it again and retry/);
    const r = await run(['tickets', 'delete', String(ID), '--yes', '--if-match', etag]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`deleted tickets ${ID}\n`);
    expect(await status('tickets', ID)).toBe(404);
  });

  it('is exit 5 with the service text when other records depend on it', async () => {
    const account = await create('accounts', { lastname: 'Parent', currency: 'EUR' });
    const contact = await create('contacts', { lastname: 'Child' });
    await create('addresses', { account: account.ID, contact: contact.ID });
    const r = await run(['accounts', 'delete', String(account.ID), '-y']);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(new RegExp(`cannot delete accounts ${account.ID}: Not Deletable: other records depend on accounts ${account.ID}; delete or change`));
    expect(await status('accounts', account.ID)).toBe(200);
  });

  it('deletes a child record', async () => {
    const account = await create('accounts', { lastname: 'P', currency: 'EUR' });
    const contact = await create('contacts', { lastname: 'C' });
    const address = await create('addresses', { account: account.ID, contact: contact.ID });
    const r = await run(['addresses', 'delete', String(address.ID), '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(await status('addresses', address.ID)).toBe(404);
  });
});

describe('svc config and svc settings', () => {
  it('shows /config as an object, JSON in a pipe', async () => {
    const r = await run(['config']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ instance: 'demo', currency: 'EUR' });
    expect(harness.sandbox().sandbox.hooks.requests.map((x) => `${x.method} ${x.url}`)).toEqual(['GET /demo/api/v1/config']);
  });

  it('shows /settings one member a row on a terminal', async () => {
    const r = await run(['settings'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^locale:\s+en$/m);
    expect(r.stdout).toMatch(/^pagesize:\s+50$/m);
  });

  it('needs a token (exit 4)', async () => {
    const r = await svc(['config'], { configDir: tempConfigDir(), env: { SVC_URL: harness.sandbox().instanceUrl } });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/not signed in/);
  });
});
