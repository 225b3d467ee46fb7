import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli, tempConfigDir } from '../helpers/cli.js';

const harness = sandboxCli();
const run = harness.run;

function sent(method: string) {
  return harness.sandbox().sandbox.hooks.requests.filter((r) => r.method === method);
}

async function fetchRecord(family: string, id: number, query = ''): Promise<Record<string, unknown>> {
  const r = await harness.sandbox().call('GET', `api/v1/${family}/${id}${query}`);
  expect(r.status, r.text).toBe(200);
  return r.json();
}

describe('svc <family> create', () => {
  it('sends PUT with converted values and shows the record as JSON in a pipe', async () => {
    const r = await run(['accounts', 'create', 'lastname=Nordwind GmbH', 'currency=EUR', 'type=customer', 'customernum=00123', 'locked=true', 'extdata.color=red', 'tags=vip,north', '+tags=new']);
    expect(r.code, r.stderr).toBe(0);
    const record = JSON.parse(r.stdout) as { ID: number };
    expect(record).toMatchObject({ lastname: 'Nordwind GmbH', type: 1, customernum: '00123', locked: 1 });
    expect(r.stderr).toBe(`created accounts ${record.ID}\n`);
    const [put] = sent('PUT');
    expect(put?.url).toBe('/demo/api/v1/accounts');
    expect(put?.body).toEqual({ lastname: 'Nordwind GmbH', currency: 'EUR', type: 1, customernum: '00123', locked: 1, extdata: { color: 'red' }, tags: ['vip', 'north'], '+tags': ['new'] });
    const back = await fetchRecord('accounts', record.ID, '?extdata=1&tags=1');
    expect(back).toMatchObject({ extdata: { color: 'red' }, tags: ['new', 'north', 'vip'] });
  });

  it('shows one field a row on a terminal as get does (enum names, dates in --tz), and the ETag with --verbose', async () => {
    const r = await run(['tasks', 'create', 'name=Call back', 'duedate=2026-05-01T09:30', '--tz', 'UTC', 'status=active', '--verbose'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^name:\s+Call back$/m);
    expect(r.stdout).toMatch(/^status:\s+ACTIVE$/m);
    expect(r.stdout).toMatch(/^duedate:\s+2026-05-01 09:30$/m);
    expect(r.stderr).toMatch(/^created tasks \d+$/m);
    expect(r.stderr).toMatch(/^etag: "[0-9a-f]{32}"$/m);
    const json = await run(['tasks', 'create', 'name=As JSON', '-o', 'json'], { tty: true });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ name: 'As JSON', status: 0 });
  });

  it('takes --data, with arguments overriding its members, and := raw JSON', async () => {
    const r = await run(['contacts', 'create', '--data', '{"lastname": "Old", "city": "Bonn"}', 'lastname=Meyer', 'type:=1', 'birthdate=1990-02-03', '--tz', 'Europe/Berlin']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent('PUT')[0]?.body).toEqual({ lastname: 'Meyer', city: 'Bonn', type: 1, birthdate: Date.UTC(1990, 1, 2, 23) / 1000 });
  });

  it('reads --data-file - from stdin, and a file', async () => {
    const r = await run(['accounts', 'create', '--data-file', '-', 'firstname=Ann'], { stdin: ['{"lastname": "Piped",', ' "currency": "CHF"}\n'] });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ lastname: 'Piped', firstname: 'Ann', currency: 'CHF' });
    const file = join(tempConfigDir(), 'ticket.json');
    writeFileSync(file, JSON.stringify({ name: 'From a file' }));
    const t = await run(['tickets', 'create', '--data-file', file]);
    expect(t.code, t.stderr).toBe(0);
    expect(JSON.parse(t.stdout)).toMatchObject({ name: 'From a file' });
  });

  it('creates a child record (addresses of an account)', async () => {
    const account = (JSON.parse((await run(['accounts', 'create', 'lastname=Parent', 'currency=EUR'])).stdout) as { ID: number }).ID;
    const contact = (JSON.parse((await run(['contacts', 'create', 'lastname=Street'])).stdout) as { ID: number }).ID;
    const r = await run(['addresses', 'create', `account=${account}`, `contact=${contact}`]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ account, contact });
  });
});

describe('checks before sending (exit 2, nothing sent)', () => {
  const cases: [string, string[], RegExp][] = [
    ['unknown field', ['accounts', 'create', 'lastnme=x', 'currency=EUR'], /unknown field 'lastnme' on accounts; did you mean 'lastname'\?/],
    ['read-only field', ['accounts', 'update', '1', 'lastmodified=5'], /accounts.lastmodified is read-only/],
    ['ID on create', ['accounts', 'create', 'ID=5', 'lastname=x', 'currency=EUR'], /ID cannot be given on create/],
    ['type', ['accounts', 'update', '1', 'contact=abc'], /accounts.contact takes a whole number, not 'abc'/],
    ['raw JSON of the wrong type', ['accounts', 'update', '1', 'customernum:=123'], /accounts.customernum takes text, not 123/],
    ['enum name', ['accounts', 'update', '1', 'type=client'], /unknown value 'client' for accounts.type; use one of PROSPECT, CUSTOMER/],
    ['pattern', ['accounts', 'create', 'lastname=x', 'currency=eur'], /accounts.currency must match \^\[A-Z\]\{3\}\$/],
    ['bounds', ['appointments', 'update', '1', 'interval=0'], /appointments.interval must be at least 1, not 0/],
    ['length', ['tasks', 'update', '1', 'name='], /tasks.name cannot be empty/],
    ['leading blank', ['accounts', 'update', '1', 'lastname= Acme'], /accounts.lastname cannot start or end with blanks/],
    ['line break', ['accounts', 'update', '1', 'lastname=Ac\nme'], /accounts.lastname must be one line/],
    ['required on create', ['accounts', 'create', 'lastname=Acme'], /accounts needs currency \(ISO 4217 code, e.g. EUR\); add currency=EUR/],
    ['required name', ['tickets', 'create', 'description=x'], /tickets needs name; add name=VALUE/],
    ['one not empty', ['accounts', 'create', 'currency=EUR'], /accounts needs lastname or firstname not empty/],
    ['only for type', ['accounts', 'create', 'lastname=x', 'currency=EUR', 'type=SUPPLIER', 'customernum=C1'], /customernum is allowed only when type is PROSPECT/],
    ['at most one', ['contacts', 'create', 'lastname=x', 'owneruser=1', 'ownergroup=1'], /at most one of owneruser and ownergroup/],
    ['ordered dates', ['appointments', 'create', 'name=x', 'datefrom=2026-05-02', 'dateto=2026-05-01'], /appointments.datefrom must not be after dateto/],
    ['bad date', ['tasks', 'update', '1', 'duedate=soon'], /tasks.duedate takes a date/],
    ['bad zone', ['tasks', 'update', '1', 'duedate=2026-05-01', '--tz', 'Mars/Base'], /unknown time zone 'Mars\/Base'/],
    ['bad --data', ['accounts', 'create', '--data', '[1]'], /--data must be one JSON object/],
    ['missing file', ['accounts', 'create', '--data-file', '/nonexistent/x.json'], /cannot read --data-file '\/nonexistent\/x.json': no such file/],
    ['nothing to update', ['accounts', 'update', '1'], /nothing to update/],
    ['bad ID', ['accounts', 'update', 'abc', 'lastname=x'], /invalid ID 'abc' for accounts/],
    ['bare word', ['accounts', 'create', 'lastname'], /cannot read 'lastname' as a field value/],
    ['unknown option', ['accounts', 'create', '--bogus', 'lastname=x'], /unknown option '--bogus'/],
  ];
  it.each(cases)('%s', async (_name, argv, message) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
    expect(harness.sandbox().sandbox.hooks.requests).toEqual([]);
  });

  it('offers no write verbs on a read-only family', async () => {
    const r = await run(['users', 'create', 'name=x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'create'/);
    expect(harness.sandbox().sandbox.hooks.requests).toEqual([]);
  });
});
