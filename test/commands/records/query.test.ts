import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryVerb } from '../../../src/commands/records/query/command.js';
import type { QueryOptions } from '../../../src/commands/records/query/options.js';
import { sandboxCli, svc } from '../../helpers/cli.js';
import { family, NO_FILTER, optionsOf, refusal } from './support.js';

describe('accounts query: flags → options', () => {
  it('has the defaults of a plain query', () => {
    expect(optionsOf<QueryOptions>(queryVerb, 'accounts')).toEqual({
      ...NO_FILTER,
      family: family('accounts'),
      listFields: false,
      all: false,
      pageSize: 1000,
      distinct: false,
    });
  });

  it('reads fields with aliases and paths, sort, limit, offset, expand and the filter options', () => {
    const opts = optionsOf<QueryOptions>(queryVerb, 'accounts', {
      flags: { filter: ['ID > 1', 'type = CUSTOMER'], search: 'acme', tz: 'UTC', fields: 'ID,name=lastname,city=contact.city', sort: '-lastmodified,lastname', limit: '10', offset: '5', distinct: true },
    });
    expect(opts).toMatchObject({
      filter: ['ID > 1', 'type = CUSTOMER'],
      search: 'acme',
      tz: 'UTC',
      fields: [
        { name: 'ID', path: 'ID' },
        { name: 'name', path: 'lastname' },
        { name: 'city', path: 'contact.city' },
      ],
      sort: ['-lastmodified', '+lastname'],
      limit: 10,
      offset: 5,
      distinct: true,
    });
    expect(optionsOf<QueryOptions>(queryVerb, 'items', { flags: { expand: 'picbinfile, ' } })).toMatchObject({ expand: ['picbinfile'] });
    expect(refusal(queryVerb, 'accounts', { flags: { expand: 'contact' } })).toBe("cannot expand 'contact' on accounts: it has no field that expands (see 'svc describe accounts')");
  });

  it('takes --fields without a value as "list the fields", and --all with its page size', () => {
    expect(optionsOf<QueryOptions>(queryVerb, 'accounts', { flags: { fields: true } })).toMatchObject({ listFields: true });
    expect(optionsOf<QueryOptions>(queryVerb, 'accounts', { flags: { all: true, pageSize: '40' } })).toMatchObject({ all: true, pageSize: 40 });
  });

  it('refuses bad input with a usage error naming the fix', () => {
    expect(refusal(queryVerb, 'accounts', { flags: { all: true, sort: 'ID' } })).toBe('--all pages in ID order: drop --sort and --offset (sort the output afterwards)');
    expect(refusal(queryVerb, 'accounts', { flags: { limit: '0' } })).toBe("--limit takes a whole number from 1 to 10000, not '0'");
    expect(refusal(queryVerb, 'accounts', { flags: { all: true, pageSize: '10001' } })).toBe("--page-size takes a whole number from 1 to 10000, not '10001'");
    expect(refusal(queryVerb, 'accounts', { flags: { fields: 'lastnme' } })).toBe("unknown field 'lastnme' on accounts; did you mean 'lastname'? (run 'svc describe accounts')");
  });

  it('refuses what --all cannot honour, and --page-size without --all, naming the fix', () => {
    expect(refusal(queryVerb, 'accounts', { flags: { all: true, limit: '5' } })).toBe('--all gives every matching record: drop --limit (--page-size N sets the records per request), or drop --all for at most N records');
    expect(refusal(queryVerb, 'accounts', { flags: { pageSize: '5' } })).toBe('--page-size sets the records per request of --all: add --all, or use --limit N for one page of N records');
    expect(refusal(queryVerb, 'accounts', { flags: { all: true, distinct: true } })).toMatch(/^--distinct does not go with --all .*drop --all and use --limit N/);
  });

  it('refuses a --fields list with an empty item, or one name for two paths', () => {
    expect(refusal(queryVerb, 'accounts', { flags: { fields: 'ID,,lastname' } })).toBe("--fields has an empty item in 'ID,,lastname': drop the extra comma");
    expect(refusal(queryVerb, 'accounts', { flags: { fields: 'ID,lastname,' } })).toMatch(/^--fields has an empty item/);
    expect(refusal(queryVerb, 'accounts', { flags: { fields: ' , ' } })).toMatch(/^--fields needs at least one field/);
    expect(refusal(queryVerb, 'accounts', { flags: { fields: 'x=lastname,x=firstname' } })).toBe("--fields names 'x' for both lastname and firstname: give each its own name (alias=path)");
    // The same name for the same path is one column, asked once.
    expect(optionsOf<QueryOptions>(queryVerb, 'accounts', { flags: { fields: 'ID,ID' } })).toMatchObject({ fields: [{ name: 'ID', path: 'ID' }, { name: 'ID', path: 'ID' }] });
  });
});

describe('accounts query: options → what the user sees', () => {
  const { sandbox, run } = sandboxCli();
  const MARK = 'QueryCmd';
  const mine = JSON.stringify({ lastname: { '~~': `${MARK}%` } });
  const ids: number[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 5; i++) {
      const r = await sandbox().call('PUT', 'api/v1/accounts', { json: { lastname: `${MARK} ${i}`, currency: 'EUR', type: 1 } });
      ids.push(r.json<{ ID: number }>().ID);
    }
  });

  it('writes the records as JSON in a pipe and sends the body the options make', async () => {
    const r = await run(['accounts', 'query', '--filter-json', mine, '--fields', 'ID,name=lastname', '--sort', '-ID', '--limit', '2']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([4, 3].map((i) => ({ ID: ids[i], name: `${MARK} ${i}` })));
    // A full page: one count request more, to say that more match.
    expect(r.stderr).toBe('svc: showing 2 of 5 accounts (--limit 2; --all for every one)\n');
    const body = { filters: JSON.parse(mine), fields: { ID: 'ID', name: 'lastname' }, sort: ['-ID'], limit: 2 };
    expect(sandbox().sandbox.hooks.requests.map((q) => q.body)).toEqual([body, { ...body, count: true }]);
  });

  it('shows a table on a terminal and says when more records match than it shows', async () => {
    const r = await run(['accounts', 'query', '--filter-json', mine, '--fields', 'ID,lastname,type', '--limit', '2'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+LASTNAME\s+TYPE$/);
    expect(lines.slice(1)).toEqual([expect.stringMatching(new RegExp(`^${ids[0]}\\s+${MARK} 0\\s+CUSTOMER$`)), expect.stringMatching(new RegExp(`^${ids[1]}\\s+${MARK} 1\\s+CUSTOMER$`))]);
    expect(r.stderr).toBe('svc: showing 2 of 5 accounts (--limit 2; --all for every one)\n');
  });

  it('pages through every record by ID with --all', async () => {
    const r = await run(['accounts', 'query', '--filter-json', mine, '--all', '--page-size', '2', '--fields', 'lastname', '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(ids.map((_, i) => `{"lastname":"${MARK} ${i}"}\n`).join(''));
    expect(sandbox().sandbox.hooks.requests).toHaveLength(3);
  });

  it('prints the request with --print-request and sends nothing', async () => {
    const r = await run(['accounts', 'query', '--filter', 'ID > 100', '--fields', 'ID', '--limit', '5', '--print-request']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ filters: { ID: { '>': 100 } }, fields: { ID: 'ID' }, limit: 5 });
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });

  it('prints the first page of --all with --print-request: sort +ID, the page size, ID > 0 beside the filter', async () => {
    const r = await run(['accounts', 'query', '--all', '--page-size', '10', '--filter', 'type = CUSTOMER', '--fields', 'lastname', '--print-request']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ filters: { type: 1, ID: { '>': 0 } }, fields: { lastname: 'lastname', ID: 'ID' }, sort: ['+ID'], limit: 10 });
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });

  it('pages --all through a filter nested as deep as the service takes, adding no level', async () => {
    const deep = `${'not '.repeat(32)}ID > 1`;
    const count = await run(['accounts', 'count', '--filter', deep, '--filter-json', mine]);
    expect(count.code, count.stderr).toBe(0);
    const r = await run(['accounts', 'query', '--all', '--page-size', '2', '--fields', 'ID', '-o', 'ndjson', '--filter', deep, '--filter-json', mine]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength((JSON.parse(count.stdout) as { count: number }).count);
    const sum = await run(['accounts', 'sum', 'ID', '--page-size', '2', '--filter', deep, '--filter-json', mine]);
    expect(sum.code, sum.stderr).toBe(0);
    expect(JSON.parse(sum.stdout)).toMatchObject({ count: ids.length });
  });

  it('refuses bad flags with exit 2, one line on stderr and nothing sent', async () => {
    const r = await run(['accounts', 'query', '--limit', '0']);
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: "svc: --limit takes a whole number from 1 to 10000, not '0'\n" });
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });
});

describe('accounts query against a service that answers oddly', () => {
  // A server that answers every query with `page`, and every count with `count` (as JSON).
  let server: Server;
  let answers: { page: string; count: string } = { page: '[]', count: '{}' };
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end(body.includes('"count":true') ? answers.count : answers.page);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  const run = (argv: string[]) =>
    svc(argv, { env: { SVC_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`, SVC_TOKEN: 't', NO_COLOR: '1' } });

  it('prints a full page and no notice when the count answer holds no number', async () => {
    answers = { page: '[{"ID":1},{"ID":2}]', count: '{}' };
    expect(await run(['accounts', 'query', '--limit', '2', '--fields', 'ID', '-o', 'csv'])).toEqual({ code: 0, stdout: 'ID\n1\n2\n', stderr: '' });
  });

  it.each([
    ['a service that ignores ID > last', '[{"ID":5},{"ID":6}]', /^svc: paging by ID stopped: asked for IDs above 6, the service answered ID 5, so the next page would repeat records \(it ignored the ID > 6 condition\)\n$/],
    ['IDs out of order within a page', '[{"ID":6},{"ID":5}]', /^svc: paging by ID stopped: the service answered ID 5 after ID 6, out of ID order/],
    ['an ID past 2^53, which JSON rounds', '[{"ID":12345678901234567891}]', /^svc: paging by ID stopped at ID 12345678901234567000: IDs past 2\^53 − 1 \(9007199254740991\) cannot be paged exactly/],
    ['a record without an ID', '[{"lastname":"x"}]', /^svc: paging by ID stopped: the service answered a record whose ID is undefined, not a number/],
  ])('query --all and sum stop with exit 1 and one line, never asking for the same page again: %s', async (_what, page, message) => {
    answers = { page, count: '{"count":2}' };
    for (const argv of [
      ['accounts', 'query', '--all', '--page-size', '2', '-o', 'ndjson'],
      ['accounts', 'sum', 'ID', '--page-size', '2'],
    ]) {
      const r = await run(argv);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      // The page that does not move on is not written; what came before it is, once.
      if (argv[1] === 'query') expect(r.stdout).toBe(page.startsWith('[{"ID":5}') ? '{"ID":5}\n{"ID":6}\n' : '');
    }
  });

  it('says what was wrong when a page is not a JSON array, in one line', async () => {
    answers = { page: '{"a":1}', count: '{"count":1}' };
    const r = await run(['accounts', 'query', '--limit', '2', '-o', 'json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^svc: POST http:\/\/127\.0\.0\.1:\d+\/x\/api\/v1\/accounts answered an object where a JSON array was expected\n$/);
  });
});
