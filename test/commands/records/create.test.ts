import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createVerb } from '../../../src/commands/records/create/command.js';
import type { CreateOptions } from '../../../src/commands/records/create/options.js';
import { sandboxCli } from '../../helpers/cli.js';
import { family, optionsOf, refusal } from './support.js';

describe('accounts create: flags → options', () => {
  it('keeps the field arguments in order, with --data, --data-file and --tz', () => {
    expect(optionsOf<CreateOptions>(createVerb, 'accounts', { args: [['lastname=Acme', 'currency=EUR', '-tags=old']] })).toEqual({
      family: family('accounts'),
      path: 'svc accounts create',
      words: ['lastname=Acme', 'currency=EUR', '-tags=old'],
    });
    expect(optionsOf<CreateOptions>(createVerb, 'accounts', { args: [[]], flags: { data: '{"lastname":"x"}', tz: 'Europe/Berlin' } })).toMatchObject({
      words: [],
      data: '{"lastname":"x"}',
      tz: 'Europe/Berlin',
    });
  });

  it('refuses unknown options, unknown zones and two bodies before anything is read', () => {
    expect(refusal(createVerb, 'accounts', { args: [['--bogus', 'lastname=x']] })).toBe("unknown option '--bogus' (run 'svc accounts create --help')");
    expect(refusal(createVerb, 'accounts', { args: [[]], flags: { tz: 'Mars/Base' } })).toBe("unknown time zone 'Mars/Base' for --tz; use an IANA name such as Europe/Berlin or UTC");
    expect(refusal(createVerb, 'accounts', { args: [[]], flags: { data: '{}', dataFile: 'x.json' } })).toBe('give --data or --data-file, not both');
  });
});

describe('accounts create: options → what the user sees', () => {
  const { sandbox, run } = sandboxCli();

  it('sends PUT with the converted body, says what it created and shows the record', async () => {
    const r = await run(['accounts', 'create', 'lastname=CreateCmd', 'currency=EUR', 'type=customer', 'tags=a,b', '-tags=c']);
    expect(r.code, r.stderr).toBe(0);
    const record = JSON.parse(r.stdout) as { ID: number };
    expect(record).toMatchObject({ lastname: 'CreateCmd', type: 1 });
    expect(r.stderr).toBe(`created accounts ${record.ID}\n`);
    const [put] = sandbox().sandbox.hooks.requests;
    expect(put).toMatchObject({ method: 'PUT', url: '/demo/api/v1/accounts', body: { lastname: 'CreateCmd', currency: 'EUR', type: 1, tags: ['a', 'b'], '-tags': ['c'] } });
  });

  it('reads the body from --data-file and from stdin, the field arguments over it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-create-cmd-')), 'record.json');
    writeFileSync(file, JSON.stringify({ lastname: 'FromFile', currency: 'CHF' }));
    const fromFile = await run(['accounts', 'create', '--data-file', file, 'currency=EUR']);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(JSON.parse(fromFile.stdout)).toMatchObject({ lastname: 'FromFile', currency: 'EUR' });
    const fromStdin = await run(['accounts', 'create', '--data-file', '-'], { stdin: ['{"lastname": "From', ' stdin", "currency": "USD"}'] });
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(JSON.parse(fromStdin.stdout)).toMatchObject({ lastname: 'From stdin', currency: 'USD' });
  });

  it('refuses a body the catalogue refuses with exit 2 and nothing sent', async () => {
    const r = await run(['accounts', 'create', 'lastname=x']);
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: 'svc: accounts needs currency (ISO 4217 code, e.g. EUR); add currency=EUR\n' });
    const opt = await run(['accounts', 'create', '--bogus', 'lastname=x']);
    expect(opt).toMatchObject({ code: 2, stderr: "svc: unknown option '--bogus' (run 'svc accounts create --help')\n" });
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });
});
