import { beforeAll, describe, expect, it } from 'vitest';
import { svc, tempConfigDir } from '../helpers/cli.js';
import { useTestSandbox } from '../helpers/sandbox.js';
const ids: number[] = [];
const MARK = 'ReadTest';
const AWKWARD = ['Müller, "Groß" & Söhne', 'Line\nbreak; semi', '東京 Trading', 'Tab\there'];

// A tenant with no seeded business records: the 150 accounts below are all there is, so no test filters them out.
const s = useTestSandbox({ record: true, seedAccounts: 0 });

beforeAll(async () => {
  const contact = (await s.call('PUT', 'api/v1/contacts', { json: { lastname: 'Read contact', city: 'Köln' } })).json<{ ID: number }>().ID;
  for (let i = 0; i < 150; i++) {
    const description = AWKWARD[i % AWKWARD.length] ?? '';
    const r = await s.call('PUT', 'api/v1/accounts', {
      json: { lastname: `${MARK} ${String(i).padStart(3, '0')}`, currency: 'EUR', type: i % 2, contact, description, extdata: { n: i }, tags: ['read'] },
    });
    ids.push(r.json<{ ID: number }>().ID);
  }
});
/** A JSON filter matching the 150 accounts, for the tests about filters. */
const mine = (): string => JSON.stringify({ lastname: { '~~': `${MARK}%` } });
const run = (argv: string[], tty = false) => svc(argv, { configDir: tempConfigDir(), tty, env: { SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), NO_COLOR: '1', TZ: 'UTC' } });

describe('svc <family> query', () => {
  it('shows a table of the default columns with enum names on a terminal, and says when more exist', async () => {
    const r = await run(['accounts', 'query', '--tz', 'UTC'], true);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+LASTNAME\s+FIRSTNAME\s+TYPE\s+CUSTOMERNUM\s+CURRENCY$/);
    expect(lines).toHaveLength(51);
    expect(lines[1]).toMatch(new RegExp(`^${ids[0]}\\s+${MARK} 000\\s+PROSPECT\\s+EUR$`));
    expect(lines[2]).toMatch(/CUSTOMER\s+EUR$/);
    expect(r.stderr).toBe('svc: showing 50 of 150 accounts (use --all for every one, or --limit N)\n');
  });

  it('writes the service records as JSON in a pipe, and respects --fields with aliases and paths', async () => {
    const r = await run(['accounts', 'query', '--fields', 'ID,name=lastname,city=contact.city', '--limit', '3', '--sort', '-ID']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([149, 148, 147].map((i) => ({ ID: ids[i], name: `${MARK} ${i}`, city: 'Köln' })));
    expect(s.sandbox.hooks.requests[0]?.body).toEqual({
      fields: { ID: 'ID', name: 'lastname', city: 'contact.city' },
      sort: ['-ID'],
      limit: 3,
    });
  });

  it('streams every record exactly once with --all, across pages, as one valid JSON array or NDJSON', async () => {
    const json = await run(['accounts', 'query', '--all', '--page-size', '40', '--fields', 'lastname']);
    expect(json.code, json.stderr).toBe(0);
    const records = JSON.parse(json.stdout) as { lastname: string }[];
    expect(records.map((r) => r.lastname)).toEqual(ids.map((_, i) => `${MARK} ${String(i).padStart(3, '0')}`));
    expect(records[0]).toEqual({ lastname: `${MARK} 000` }); // the ID used for paging is not added to the output
    expect(s.sandbox.hooks.requests).toHaveLength(4); // 40 + 40 + 40 + 30
    const nd = await run(['accounts', 'query', '--all', '-o', 'ndjson']);
    const lines = nd.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { ID: number });
    expect(lines.map((l) => l.ID)).toEqual(ids);
    expect(json.stderr + nd.stderr).toBe('');
  });

  it('writes CSV and TSV that parse back, with quotes, separators, line breaks and unicode intact', async () => {
    const csv = await run(['accounts', 'query', '--fields', 'ID,description', '--limit', '4', '-o', 'csv']);
    expect(csv.stdout).toBe(
      `ID,description\n${ids[0]},"Müller, ""Groß"" & Söhne"\n${ids[1]},"Line\nbreak; semi"\n${ids[2]},東京 Trading\n${ids[3]},Tab\there\n`,
    );
    const semi = await run(['accounts', 'query', '--fields', 'ID,description', '--limit', '2', '-o', 'csv', '--delimiter', ';', '--no-header']);
    expect(semi.stdout).toBe(`${ids[0]};"Müller, ""Groß"" & Söhne"\n${ids[1]};"Line\nbreak; semi"\n`);
    const tsv = await run(['accounts', 'query', '--fields', 'ID,description', '--limit', '4', '-o', 'tsv']);
    expect(tsv.stdout).toBe(`ID\tdescription\n${ids[0]}\tMüller, "Groß" & Söhne\n${ids[1]}\tLine\\nbreak; semi\n${ids[2]}\t東京 Trading\n${ids[3]}\tTab\\there\n`);
  });

  it('prints the request with --print-request and sends nothing', async () => {
    const r = await run(['accounts', 'query', '--fields', 'ID', '--limit', '5', '--print-request']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ fields: { ID: 'ID' }, limit: 5 });
    expect(s.sandbox.hooks.requests).toEqual([]);
  });

  it('takes combined short flags (-vo csv) as commander does, anywhere on the line, the same as -v -o csv', async () => {
    const printed = await run(['-vo', 'csv', 'accounts', 'query', '--fields', 'ID', '--limit', '1', '--print-request']);
    expect(printed).toEqual({ code: 0, stdout: `${JSON.stringify({ fields: { ID: 'ID' }, limit: 1 }, null, 2)}\n`, stderr: '' });
    const combined = await run(['-vo', 'csv', 'accounts', 'query', '--fields', 'ID,lastname', '--limit', '2']);
    const apart = await run(['-v', '-o', 'csv', 'accounts', 'query', '--fields', 'ID,lastname', '--limit', '2']);
    const after = await run(['accounts', 'query', '--fields', 'ID,lastname', '--limit', '2', '-vo', 'csv']);
    expect(combined.code).toBe(0);
    expect(combined.stdout).toBe(`ID,lastname\n${ids[0]},${MARK} 000\n${ids[1]},${MARK} 001\n`);
    for (const r of [apart, after]) expect(r).toMatchObject({ code: 0, stdout: combined.stdout });
    // -v logs each request on stderr, secrets redacted.
    for (const r of [combined, apart, after]) expect(r.stderr).toMatch(/^→ POST http:\/\/127\.0\.0\.1:\d+\/\w+\/api\/v1\/accounts\n/);
    const bad = await run(['-ox', 'accounts', 'count']);
    expect(bad).toEqual({ code: 2, stdout: '', stderr: "svc: unknown output format 'x' (choose table, json, ndjson, csv, tsv; for export, a file of that name: --output-file x)\n" });
  });

  it("sends fields in the object form the vendor's api.json types (alias → path), with or without aliases", async () => {
    const r = await run(['accounts', 'query', '--fields', 'ID,lastname,contact.city', '--limit', '2', '-o', 'json']);
    expect(r.code).toBe(0);
    expect((s.sandbox.hooks.requests[0]?.body as { fields?: unknown }).fields).toEqual({ ID: 'ID', lastname: 'lastname', 'contact.city': 'contact.city' });
    expect(Object.keys((JSON.parse(r.stdout) as Record<string, unknown>[])[0] ?? {})).toEqual(['ID', 'lastname', 'contact.city']);
    const all = await run(['accounts', 'query', '--all', '--page-size', '3', '--fields', 'lastname', '-o', 'ndjson']);
    expect(all.code).toBe(0);
    expect(all.stdout.trimEnd().split('\n').map((l) => Object.keys(JSON.parse(l) as object))).toContainEqual(['lastname']);
    expect(all.stdout).not.toContain('"ID"');
  });

  it("sends filters under 'filter' when the profile says so, through every page of --all", async () => {
    const configDir = tempConfigDir();
    const env = { SVC_TOKEN: s.token(), NO_COLOR: '1' };
    expect((await svc(['profile', 'add', 'schema', '--url', s.instanceUrl, '--filter-member', 'filter'], { configDir, env })).code).toBe(0);
    const r = await svc(['accounts', 'query', '--filter-json', mine(), '--all', '--page-size', '100', '--fields', 'ID'], { configDir, env });
    expect((JSON.parse(r.stdout) as unknown[]).length).toBe(150);
    const bodies = s.sandbox.hooks.requests.map((q) => q.body as Record<string, unknown>);
    expect(bodies).toHaveLength(2);
    for (const b of bodies) {
      expect(b).toHaveProperty('filter');
      expect(b).not.toHaveProperty('filters');
    }
    const bad = await svc(['profile', 'add', 'x', '--url', s.instanceUrl, '--filter-member', 'filtre'], { configDir, env });
    expect(bad.stderr).toBe("svc: --filter-member takes 'filters' (the default) or 'filter', not 'filtre'\n");
  });

  it('refuses unknown fields and conflicting options before sending, with exit 2', async () => {
    const bad = await run(['accounts', 'query', '--fields', 'ID,lastnme']);
    expect(bad).toMatchObject({ code: 2, stdout: '' });
    expect(bad.stderr).toBe("svc: unknown field 'lastnme' on accounts; did you mean 'lastname'? (run 'svc describe accounts')\n");
    const sorted = await run(['accounts', 'query', '--all', '--sort', 'lastname']);
    expect(sorted.stderr).toBe('svc: --all pages in ID order: drop --sort and --offset (sort the output afterwards)\n');
    expect((await run(['accounts', 'query', '--limit', '0'])).stderr).toBe("svc: --limit takes a whole number from 1 to 10000, not '0'\n");
    expect((await run(['accounts', 'query', '--filter-json', '[1'])).code).toBe(2);
    expect(s.sandbox.hooks.requests).toEqual([]);
  });

  it('takes the filter language, ANDs several filters, and explains what it sends', async () => {
    const both = await run(['accounts', 'count', '--filter', `lastname like "${MARK}%"`, '--filter', 'type = CUSTOMER']);
    expect(JSON.parse(both.stdout)).toEqual({ count: 75 });
    const mixed = await run(['accounts', 'query', '--filter', 'type = customer', '--filter-json', mine(), '--fields', 'ID', '--all']);
    expect((JSON.parse(mixed.stdout) as { ID: number }[]).map((r) => r.ID)).toEqual(ids.filter((_, i) => i % 2 === 1));
    const explain = await run(['accounts', 'query', '--filter', 'type = CUSTOMER and contact.city ~* "^k"', '--explain']);
    expect(JSON.parse(explain.stdout)).toEqual({ type: 1, 'contact.city': { '~*': '^k' } });
    // The count and one --all page (75 records) were sent; --explain sent nothing.
    expect(s.sandbox.hooks.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
  });

  it('shows a filter error with a caret under the problem, exit 2, nothing sent', async () => {
    const r = await run(['accounts', 'query', '--filter', 'typ = CUSTOMER']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const [message, expr, caret] = r.stderr.split('\n');
    expect(message).toMatch(/^svc: unknown field 'typ' on accounts; did you mean 'type'\?/);
    expect(expr).toMatch(/typ = CUSTOMER$/);
    expect(caret?.indexOf('^')).toBe(expr?.indexOf('typ'));
    expect(s.sandbox.hooks.requests).toEqual([]);
  });

  it('counts, and works on read-only families', async () => {
    const r = await run(['accounts', 'count']);
    expect(JSON.parse(r.stdout)).toEqual({ count: 150 });
    expect((await run(['accounts', 'count'], true)).stdout).toBe('150\n');
    const users = await run(['users', 'query', '--fields', 'name', '--sort', 'name']);
    expect(JSON.parse(users.stdout)).toEqual([{ name: 'demo' }, { name: 'field' }, { name: 'reader' }, { name: 'secure' }, { name: 'staff' }]);
  });
});

describe('svc <family> get and exists', () => {
  it('shows one field per row on a terminal, the record as JSON in a pipe', async () => {
    const id = ids[1];
    const tty = await run(['accounts', 'get', String(id), '--tz', 'UTC'], true);
    expect(tty.code, tty.stderr).toBe(0);
    expect(tty.stdout).toMatch(new RegExp(`^ID:\\s+${id}$`, 'm'));
    expect(tty.stdout).toMatch(/^type:\s+CUSTOMER$/m);
    expect(tty.stdout).toMatch(/^creationdate:\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/m);
    const json = await run(['accounts', 'get', String(id), '--extdata', '--tags']);
    expect(JSON.parse(json.stdout)).toMatchObject({ ID: id, type: 1, extdata: { n: 1 }, tags: ['read'] });
  });

  it('answers "unchanged" for a matching --if-none-match, and exit 3 for a missing record', async () => {
    const id = ids[2];
    const etag = String((await s.call('GET', `api/v1/accounts/${id}`)).headers.etag);
    const same = await run(['accounts', 'get', String(id), '--if-none-match', etag]);
    expect(same).toMatchObject({ code: 0, stdout: '', stderr: `accounts ${id} is unchanged (ETag ${etag})\n` });
    const missing = await run(['accounts', 'get', '999999']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/404: Not Found: accounts 999999 does not exist/);
    expect((await run(['accounts', 'get', 'abc'])).code).toBe(2);
  });

  it('exists: exit 0 or 3, nothing printed', async () => {
    expect(await run(['accounts', 'exists', String(ids[0])])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(await run(['accounts', 'exists', '999999'])).toMatchObject({ code: 3, stdout: '', stderr: '' });
  });
});
