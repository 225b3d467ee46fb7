import { beforeAll, describe, expect, it } from 'vitest';
import { prepareInsert } from '../../src/sandbox/data/store.js';
import { sandboxCli } from '../helpers/cli.js';

const { sandbox, run } = sandboxCli();
const MARK = 'SumTest';
const BIG = 'SumBig';
const mine = `subject = "${MARK}"`;

beforeAll(() => {
  const db = sandbox().sandbox.db;
  const now = Math.floor(Date.now() / 1000);
  const payment = prepareInsert(db, 'demo', 'payments', ['subject', 'status', 'amount', 'date', 'creationdate', 'lastmodified']);
  // status 0 DRAFT: 120 × 1.1; 3 BOOKED: 0.1 + 0.2; 1 COMPLETED: negative values
  for (let i = 0; i < 120; i++) payment([MARK, 0, 1.1, now, now, now]);
  for (const amount of [0.1, 0.2]) payment([MARK, 3, amount, now, now, now]);
  for (const amount of [-5.25, -0.5, 2]) payment([MARK, 1, amount, now, now, now]);
  // int64 values that are safe one by one but whose total is beyond 2^53
  for (let i = 0; i < 3; i++) payment([BIG, 0, 0, Number.MAX_SAFE_INTEGER, now, now]);
  const item = prepareInsert(db, 'demo', 'items', ['name', 'manufacturer', 'type', 'taxrate', 'creationdate', 'lastmodified']);
  // type 0 SIMPLE: taxrate 0.1 on 100 and null on 20; type 2 CHARGES: 0.19 twice
  for (let i = 0; i < 120; i++) item([`simple ${i}`, MARK, 0, i < 100 ? 0.1 : null, now, now]);
  for (let i = 0; i < 2; i++) item([`charge ${i}`, MARK, 2, 0.19, now, now]);
});

describe('svc <family> sum', () => {
  it('totals exactly over every matching record and fetches only the fields it needs', async () => {
    const r = await run(['payments', 'sum', 'amount', '--filter', mine, '--page-size', '50']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ field: 'amount', sum: 128.55, count: 125, nulls: 0 });
    const requests = sandbox().sandbox.hooks.requests;
    expect(requests).toHaveLength(3);
    expect(requests[0]?.body).toMatchObject({ fields: { ID: 'ID', amount: 'amount' }, sort: ['+ID'], limit: 50 });
  });

  it('sums 120 × 1.1 to 132, skips and counts nulls', async () => {
    const simple = await run(['payments', 'sum', 'amount', '--filter', `${mine} and status = DRAFT`]);
    expect(JSON.parse(simple.stdout)).toEqual({ field: 'amount', sum: 132, count: 120, nulls: 0 });
    const tax = await run(['items', 'sum', 'taxrate', '--filter', `manufacturer = "${MARK}" and type = SIMPLE`, '-o', 'ndjson']);
    expect(tax.stdout).toBe('{"field":"taxrate","sum":10,"count":100,"nulls":20}\n');
  });

  it('sums 0.1 + 0.2 to 0.3 with a filter in the language or as JSON', async () => {
    const r = await run(['payments', 'sum', 'amount', '--filter', `${mine} and status = BOOKED`, '-o', 'csv']);
    expect(r.stdout).toBe('field,sum,count,nulls\namount,0.3,2,0\n');
    const json = await run(['payments', 'sum', 'amount', '--filter-json', JSON.stringify({ subject: MARK, status: 3 })]);
    expect(JSON.parse(json.stdout)).toMatchObject({ sum: 0.3, count: 2 });
  });

  it('shows one row per group with enum names on a terminal, sorted by value', async () => {
    const r = await run(['payments', 'sum', 'amount', '--filter', mine, '--by', 'status'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n').map((l) => l.trim().split(/\s+/));
    expect(lines[0]?.map((h) => h.toLowerCase())).toEqual(['group', 'sum', 'count', 'nulls']);
    expect(lines.slice(1)).toEqual([
      ['DRAFT', '132', '120', '0'],
      ['COMPLETED', '-3.75', '3', '0'],
      ['BOOKED', '0.3', '2', '0'],
    ]);
  });

  it('writes raw group values in data output, with the nulls of each group', async () => {
    const csv = await run(['items', 'sum', 'taxrate', '--filter', `manufacturer = "${MARK}"`, '--by', 'type', '-o', 'csv']);
    expect(csv.stdout).toBe('group,sum,count,nulls\n0,10,100,20\n2,0.38,2,0\n');
    const json = await run(['payments', 'sum', 'amount', '--filter', mine, '--by', 'status', '-o', 'json']);
    expect(JSON.parse(json.stdout)).toEqual([
      { group: 0, sum: 132, count: 120, nulls: 0 },
      { group: 1, sum: -3.75, count: 3, nulls: 0 },
      { group: 3, sum: 0.3, count: 2, nulls: 0 },
    ]);
  });

  it('totals int64 values beyond 2^53 exactly, as a string in JSON and plain digits in a table', async () => {
    const total = (3n * BigInt(Number.MAX_SAFE_INTEGER)).toString();
    const json = await run(['payments', 'sum', 'date', '--filter', `subject = "${BIG}"`]);
    expect(JSON.parse(json.stdout)).toEqual({ field: 'date', sum: total, count: 3, nulls: 0 });
    const table = await run(['payments', 'sum', 'date', '--filter', `subject = "${BIG}"`], { tty: true });
    expect(table.stdout).toContain(total);
  });

  it('gives sum 0 and count 0 for no records', async () => {
    const r = await run(['payments', 'sum', 'amount', '--filter', 'subject = "nobody at all"']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ field: 'amount', sum: 0, count: 0, nulls: 0 });
    const grouped = await run(['payments', 'sum', 'amount', '--filter', 'subject = "nobody at all"', '--by', 'status']);
    expect(JSON.parse(grouped.stdout)).toEqual([]);
  });

  it('refuses a field that is not numeric, or unknown, with exit 2 and sends nothing', async () => {
    const text = await run(['payments', 'sum', 'subject']);
    expect(text.code).toBe(2);
    expect(text.stderr).toMatch(/cannot sum 'subject' on payments: it is a string field/);
    const unknown = await run(['payments', 'sum', 'amont']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown sum field 'amont' on payments.*amount/);
    const by = await run(['items', 'sum', 'taxrate', '--by', 'foreigntaxrates']);
    expect(by.code).toBe(2);
    expect(by.stderr).toMatch(/cannot group by 'foreigntaxrates'.*object field/);
    expect(sandbox().sandbox.hooks.requests).toHaveLength(0);
  });
});
