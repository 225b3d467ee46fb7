/** `svc resources`: no options; the families as data, and the family named resources reachable under the same word. */
import { describe, expect, it } from 'vitest';
import { resourcesSpec } from '../../../src/commands/resources/command.js';
import { families } from '../../../src/catalogue/index.js';
import { sandboxCli } from '../../helpers/cli.js';

describe('svc resources', () => {
  const { sandbox, run } = sandboxCli({ record: true });

  it('takes no flags of its own', () => {
    expect(resourcesSpec.toOptions({ args: [], flags: {} })).toEqual({});
  });

  it('lists every family from the catalogue without asking the service', async () => {
    const r = await run(['resources', '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n').map((l) => (JSON.parse(l) as { name: string }).name)).toEqual(families.map((f) => f.name));
    expect(sandbox.sandbox.hooks.requests).toEqual([]);
  });

  it('runs the verbs of the family named resources, and refuses any other word with the nearest verb', async () => {
    const count = await run(['resources', 'count', '-o', 'json']);
    expect(count).toMatchObject({ code: 0, stdout: '{\n  "count": 0\n}\n', stderr: '' });
    expect(sandbox.sandbox.hooks.requests.some((q) => q.url.startsWith('/demo/api/v1/resources'))).toBe(true);
    const bad = await run(['resources', 'cont']);
    expect(bad).toMatchObject({ code: 2, stdout: '', stderr: "svc: unknown command 'cont' for 'svc resources'; did you mean 'count'? (run 'svc resources --help')\n" });
    const far = await run(['resources', 'zzzzzz']);
    expect(far.stderr).toBe("svc: unknown command 'zzzzzz' for 'svc resources' (run 'svc resources --help')\n");
  });
});
