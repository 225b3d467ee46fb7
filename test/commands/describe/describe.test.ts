/** `svc describe PATH`: the path → options, checked against the catalogue (pure); then the view. */
import { describe, expect, it } from 'vitest';
import { findFamily } from '../../../src/catalogue/index.js';
import { toDescribeOptions } from '../../../src/commands/describe/options.js';
import { sandboxCli } from '../../helpers/cli.js';

describe('svc describe: path → options', () => {
  it('resolves a resource, a field, and a path through references', () => {
    expect(toDescribeOptions('accounts')).toEqual({ path: 'accounts', family: findFamily('accounts') });
    const field = toDescribeOptions('accounts.type');
    expect([field.family.name, field.field?.name]).toEqual(['accounts', 'type']);
    const via = toDescribeOptions('accounts.contact.city');
    expect([via.path, via.family.name, via.field?.name]).toEqual(['accounts.contact.city', 'contacts', 'city']);
  });

  it('refuses unknown names with a did-you-mean, and a path past a field that references nothing', () => {
    expect(() => toDescribeOptions('acounts')).toThrow("unknown resource 'acounts'; did you mean 'accounts'? (run 'svc resources' for the list)");
    expect(() => toDescribeOptions('accounts.tpye')).toThrow("unknown field 'tpye' on accounts; did you mean 'type'? (run 'svc describe accounts')");
    expect(() => toDescribeOptions('accounts.type.name')).toThrow("field 'type' on accounts references no resource, so 'name' cannot follow it");
  });
});

describe('svc describe: run', () => {
  const { sandbox, run } = sandboxCli({ record: true });

  it('explains a field from the catalogue alone, as data', async () => {
    const r = await run(['describe', 'accounts.contact.city', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ resource: 'contacts', name: 'city' });
    expect(sandbox.sandbox.hooks.requests).toEqual([]);
  });

  it('says so in one line with exit 2 for an unknown resource', async () => {
    expect(await run(['describe', 'acounts'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: "svc: unknown resource 'acounts'; did you mean 'accounts'? (run 'svc resources' for the list)\n",
    });
  });
});
