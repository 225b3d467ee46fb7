import { describe, expect, it } from 'vitest';
import { describeVerb } from '../../../src/commands/records/describe/command.js';
import type { DescribeOptions } from '../../../src/commands/records/describe/options.js';
import { sandboxCli } from '../../helpers/cli.js';
import { family, optionsOf } from './support.js';

describe('accounts describe: flags → options', () => {
  it('takes an optional field or path', () => {
    expect(optionsOf<DescribeOptions>(describeVerb, 'accounts', { args: [undefined] })).toEqual({ family: family('accounts') });
    expect(optionsOf<DescribeOptions>(describeVerb, 'accounts', { args: ['contact.city'] })).toEqual({ family: family('accounts'), field: 'contact.city' });
  });
});

describe('accounts describe: options → what the user sees', () => {
  const { sandbox, run } = sandboxCli();

  it('shows what svc describe shows, and asks the service nothing', async () => {
    const own = await run(['accounts', 'describe', 'type', '-o', 'json']);
    expect(own.code, own.stderr).toBe(0);
    expect(own.stdout).toBe((await run(['describe', 'accounts.type', '-o', 'json'])).stdout);
    expect(JSON.parse(own.stdout)).toMatchObject({ name: 'type' });
    const whole = await run(['accounts', 'describe'], { tty: true });
    expect(whole.stdout).toMatch(/^Resource:\s+accounts \(Accounts\)$/m);
    expect(whole.stdout).toMatch(/^Verbs:\s+query, count, sum, export, watch, sync, get, exists, create, update, delete, import$/m);
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });

  it('refuses an unknown field with exit 2 and a did-you-mean', async () => {
    const r = await run(['accounts', 'describe', 'lastnme']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^svc: unknown field 'lastnme' on accounts; did you mean 'lastname'\?/);
  });
});
