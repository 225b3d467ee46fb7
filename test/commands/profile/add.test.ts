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
    expect(() => toProfileAddOptions('acme', { clientId: '' })).toThrow(/^--client-id is given an empty value/);
    for (const bad of ['-x', 'a b', 'x'.repeat(201), '__proto__!', 'é']) {
      expect(() => toProfileAddOptions('acme', { clientId: bad })).toThrow(/^invalid client id '.*': an application identifier is 1-200 letters, digits/);
    }
  });

  it('refuses a bad name or --filter-member with one line', () => {
    const rule = "a profile name is 1 to 63 letters, digits, '.', '_' or '-', starting with a letter or digit";
    expect(() => toProfileAddOptions('no way', {})).toThrow(`invalid profile name 'no way': ' ' is not allowed in it; ${rule}`);
    // The part of the rule the name breaks, not one it keeps.
    expect(() => toProfileAddOptions('_x', {})).toThrow(`invalid profile name '_x': it starts with '_'; ${rule}`);
    expect(() => toProfileAddOptions('.x', {})).toThrow(`invalid profile name '.x': it starts with '.'; ${rule}`);
    expect(() => toProfileAddOptions('__proto__', {})).toThrow(`invalid profile name '__proto__': it starts with '_'; ${rule}`);
    expect(() => toProfileAddOptions('a'.repeat(64), {})).toThrow(`invalid profile name '${'a'.repeat(64)}': it is 64 characters long; ${rule}`);
    expect(() => toProfileAddOptions('', {})).toThrow(`invalid profile name '': it is empty; ${rule}`);
    expect(toProfileAddOptions('a'.repeat(63), {}).name).toBe('a'.repeat(63));
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

  it('says a --url, --ca-file or --client-id given an empty value (an unset variable) is empty, and keeps nothing', async () => {
    const configDir = tempConfigDir();
    const url = await svc(['profile', 'add', 'acme', '--url', ''], { configDir });
    expect(url).toEqual({
      code: 2,
      stdout: '',
      stderr: "svc: --url is given an empty value (an unset variable?); give the instance URL: 'svc profile add acme --url https://erp.example.com/acme'\n",
    });
    const ca = await svc(['profile', 'add', 'acme', '--url', sandbox.instanceUrl, '--ca-file', ''], { configDir });
    expect(ca.code).toBe(2);
    expect(ca.stderr).toMatch(/^svc: --ca-file is given an empty value[^\n]*\n$/);
    const id = await svc(['profile', 'add', 'acme', '--url', sandbox.instanceUrl, '--client-id', ''], { configDir });
    expect(id).toMatchObject({ code: 2, stderr: "svc: --client-id is given an empty value (an unset variable?); give the identifier of the service's application, or leave --client-id out\n" });
    expect((await openProfiles(configDir)).list()).toEqual([]);
  });
});
