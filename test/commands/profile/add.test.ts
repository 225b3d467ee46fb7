/** `svc profile add`: name and flags → options (pure); what it saves and says, and a profile that reaches a real sandbox. */
import { describe, expect, it } from 'vitest';
import { toProfileAddOptions } from '../../../src/commands/profile/add/options.js';
import { openProfiles } from '../../../src/config/profiles.js';
import { sandboxCli, svc, tempConfigDir } from '../../helpers/cli.js';

describe('svc profile add: flags → options', () => {
  it('takes the name, --use and --filter-member', () => {
    expect(toProfileAddOptions('acme', {})).toEqual({ name: 'acme', use: false });
    expect(toProfileAddOptions('a.b_c-1', { use: true, filterMember: 'filter' })).toEqual({ name: 'a.b_c-1', use: true, filterMember: 'filter' });
  });

  it('takes --client-id, an application identifier, and refuses anything else in one line', () => {
    expect(toProfileAddOptions('acme', { clientId: 'svc-cli' })).toEqual({ name: 'acme', use: false, clientId: 'svc-cli' });
    for (const bad of ['', '-x', 'a b', 'x'.repeat(201), '__proto__!', 'é']) {
      expect(() => toProfileAddOptions('acme', { clientId: bad })).toThrow(/^invalid client id '.*': an application identifier is 1-200 letters, digits/);
    }
  });

  it('refuses a bad name or --filter-member with one line', () => {
    expect(() => toProfileAddOptions('no way', {})).toThrow("invalid profile name 'no way'; use letters, digits, '.', '_' or '-'");
    expect(() => toProfileAddOptions('acme', { filterMember: 'where' })).toThrow("--filter-member takes 'filters' (the default) or 'filter', not 'where'");
  });
});

describe('svc profile add: run', () => {
  const { sandbox } = sandboxCli({ record: true });

  it('saves the first profile as the current one, says so on stderr, and reaches the instance through it', async () => {
    const configDir = tempConfigDir();
    const r = await svc(['profile', 'add', 'sb', '--url', `${sandbox.instanceUrl}/`, '--filter-member', 'filter'], { configDir });
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: `added profile 'sb' (${sandbox.instanceUrl}); it is the current profile\n` });
    expect((await openProfiles(configDir)).get('sb')).toMatchObject({ url: sandbox.instanceUrl, filterMember: 'filter' });
    const q = await svc(['accounts', 'count', '--filter', 'ID > 0'], { configDir, env: { SVC_TOKEN: sandbox.token('demo') } });
    expect(q.code, q.stderr).toBe(0);
    const sent = sandbox.sandbox.hooks.requests.find((x) => x.url.startsWith('/demo/api/v1/accounts'))?.body as Record<string, unknown>;
    expect(Object.keys(sent)).toContain('filter');
  });

  it('keeps --client-id in the profile (svc profile show lists it), never a secret', async () => {
    const configDir = tempConfigDir();
    expect((await svc(['profile', 'add', 'sb', '--url', sandbox.instanceUrl, '--client-id', 'svc-cli'], { configDir })).code).toBe(0);
    const shown = await svc(['profile', 'show', 'sb', '-o', 'json'], { configDir });
    expect(JSON.parse(shown.stdout)).toMatchObject({ name: 'sb', clientId: 'svc-cli' });
  });

  it('keeps another current profile current unless --use', async () => {
    const configDir = tempConfigDir();
    await svc(['profile', 'add', 'one', '--url', sandbox.instanceUrl], { configDir });
    const two = await svc(['profile', 'add', 'two', '--url', 'https://erp.example.com/acme'], { configDir });
    expect(two.stderr).toBe("added profile 'two' (https://erp.example.com/acme); use it with --profile two or 'svc profile use two'\n");
    const three = await svc(['profile', 'add', 'two', '--use'], { configDir });
    expect(three.stderr).toBe("updated profile 'two' (https://erp.example.com/acme); it is the current profile\n");
    expect((await openProfiles(configDir)).current()).toBe('two');
  });

  it('needs a URL for a new profile, and a readable --ca-file', async () => {
    const configDir = tempConfigDir();
    const none = await svc(['profile', 'add', 'acme'], { configDir });
    expect(none).toMatchObject({ code: 2, stdout: '', stderr: "svc: no URL for profile 'acme'; run 'svc profile add acme --url https://erp.example.com/acme'\n" });
    const ca = await svc(['profile', 'add', 'acme', '--url', sandbox.instanceUrl, '--ca-file', '/nonexistent/ca.pem'], { configDir });
    expect(ca).toMatchObject({ code: 2, stderr: "svc: cannot read CA file '/nonexistent/ca.pem'; give the path of a PEM file with --ca-file\n" });
  });
});
