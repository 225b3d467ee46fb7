import { findField } from '../../../src/catalogue/index.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { sumVerb } from '../../../src/commands/records/sum/command.js';
import type { SumOptions } from '../../../src/commands/records/sum/options.js';
import { sandboxCli } from '../../helpers/cli.js';
import { family, NO_FILTER, optionsOf, refusal } from './support.js';

describe('payments sum: flags → options', () => {
  it('resolves the field and the --by field against the catalogue', () => {
    const payments = family('payments');
    expect(optionsOf<SumOptions>(sumVerb, 'payments', { args: ['amount'] })).toEqual({ ...NO_FILTER, family: payments, field: findField(payments, 'amount'), pageSize: 1000 });
    expect(optionsOf<SumOptions>(sumVerb, 'payments', { args: ['amount'], flags: { by: 'status', pageSize: '50', filter: ['status = DRAFT'] } })).toMatchObject({
      field: findField(payments, 'amount'),
      by: findField(payments, 'status'),
      pageSize: 50,
      filter: ['status = DRAFT'],
    });
  });

  it('refuses fields it cannot total or group by, naming the fix', () => {
    expect(refusal(sumVerb, 'payments', { args: ['amout'] })).toBe("unknown sum field 'amout' on payments; did you mean 'amount'? (run 'svc describe payments')");
    expect(refusal(sumVerb, 'payments', { args: ['subject'] })).toBe("cannot sum 'subject' on payments: it is a string field (sum takes int16, int32, int64 or double fields)");
    expect(refusal(sumVerb, 'payments', { args: ['amount'], flags: { by: 'stauts' } })).toBe("unknown --by field 'stauts' on payments; did you mean 'status'? (run 'svc describe payments')");
    expect(refusal(sumVerb, 'payments', { args: ['amount'], flags: { pageSize: '0' } })).toBe("--page-size takes a whole number from 1 to 10000, not '0'");
  });
});

describe('payments sum: options → what the user sees', () => {
  const { sandbox, run } = sandboxCli();
  const MARK = 'SumCmd';
  const mine = `subject = "${MARK}"`;

  beforeAll(async () => {
    // DRAFT (0): 1.1 three times; BOOKED (3): 0.1 and 0.2.
    for (const [status, amount] of [[0, 1.1], [0, 1.1], [0, 1.1], [3, 0.1], [3, 0.2]]) {
      const r = await sandbox().call('PUT', 'api/v1/payments', { json: { subject: MARK, status, amount } });
      expect(r.status, r.text).toBeLessThan(300);
    }
  });

  it('totals exactly, paging by ID and fetching only the fields it needs', async () => {
    const r = await run(['payments', 'sum', 'amount', '--filter', mine, '--page-size', '2']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ field: 'amount', sum: 3.6, count: 5, nulls: 0 });
    const bodies = sandbox().sandbox.hooks.requests.map((q) => q.body as Record<string, unknown>);
    expect(bodies).toHaveLength(3);
    expect(bodies[0]).toMatchObject({ fields: { ID: 'ID', amount: 'amount' }, sort: ['+ID'], limit: 2 });
  });

  it('gives one row per group, with enum names on a terminal', async () => {
    const csv = await run(['payments', 'sum', 'amount', '--filter', mine, '--by', 'status', '-o', 'csv']);
    expect(csv.stdout).toBe('group,sum,count,nulls\n0,3.3,3,0\n3,0.3,2,0\n');
    const tty = await run(['payments', 'sum', 'amount', '--filter', mine, '--by', 'status'], { tty: true });
    expect(tty.stdout).toMatch(/^GROUP\s+SUM\s+COUNT\s+NULLS\nDRAFT\s+3\.3\s+3\s+0\nBOOKED\s+0\.3\s+2\s+0\n$/);
  });

  it('refuses a field that is no number with exit 2 and nothing sent', async () => {
    const r = await run(['payments', 'sum', 'subject']);
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: "svc: cannot sum 'subject' on payments: it is a string field (sum takes int16, int32, int64 or double fields)\n" });
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });
});
