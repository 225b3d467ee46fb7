import { beforeAll, describe, expect, it } from 'vitest';
import { countVerb } from '../../../src/commands/records/count/command.js';
import type { CountOptions } from '../../../src/commands/records/count/options.js';
import { sandboxCli } from '../../helpers/cli.js';
import { family, NO_FILTER, optionsOf } from './support.js';

describe('accounts count: flags → options', () => {
  it('takes the filter options and nothing else', () => {
    expect(optionsOf<CountOptions>(countVerb, 'accounts')).toEqual({ ...NO_FILTER, family: family('accounts') });
    expect(optionsOf<CountOptions>(countVerb, 'accounts', { flags: { filter: ['ID > 1'], filterJson: ['{}'], filterFile: ['f.json'], search: 'x', tz: 'UTC', explain: true } })).toEqual({
      family: family('accounts'),
      filter: ['ID > 1'],
      filterJson: ['{}'],
      filterFiles: ['f.json'],
      search: 'x',
      tz: 'UTC',
      explain: true,
      printRequest: false,
    });
  });
});

describe('accounts count: options → what the user sees', () => {
  const { sandbox, run } = sandboxCli();
  const MARK = 'CountCmd';
  const mine = JSON.stringify({ lastname: { '~~': `${MARK}%` } });

  beforeAll(async () => {
    for (let i = 0; i < 3; i++) await sandbox().call('PUT', 'api/v1/accounts', { json: { lastname: `${MARK} ${i}`, currency: 'EUR' } });
  });

  it('prints the number alone on a terminal and {"count": n} as data, from one count request', async () => {
    const tty = await run(['accounts', 'count', '--filter-json', mine], { tty: true });
    expect(tty).toMatchObject({ code: 0, stdout: '3\n', stderr: '' });
    const json = await run(['accounts', 'count', '--filter-json', mine]);
    expect(JSON.parse(json.stdout)).toEqual({ count: 3 });
    const csv = await run(['accounts', 'count', '--filter-json', mine, '-o', 'csv']);
    expect(csv.stdout).toBe('field,value\ncount,3\n');
    expect(sandbox().sandbox.hooks.requests.map((q) => q.body)).toEqual([1, 2, 3].map(() => ({ filters: JSON.parse(mine), count: true })));
  });

  it('shows the compiled filter with --explain and sends nothing', async () => {
    const r = await run(['accounts', 'count', '--filter', 'ID > 100', '--explain']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ID: { '>': 100 } });
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });

  it('refuses a filter that is not JSON with exit 2 and nothing sent', async () => {
    const r = await run(['accounts', 'count', '--filter-json', '[1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^svc: --filter-json is not valid JSON: .+\n$/);
    expect(r.stdout).toBe('');
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });
});
