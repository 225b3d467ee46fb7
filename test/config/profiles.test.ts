import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProfiles } from '../../src/config/profiles.js';

const dir = (): string => mkdtempSync(join(tmpdir(), 'svc-profiles-'));

describe('profiles', () => {
  it('adds, lists, switches and removes profiles in a 0600 config file', async () => {
    const store = await openProfiles(dir());
    const prod = store.save({ name: 'prod', url: 'https://erp.example.com/acme' });
    store.save({ name: 'sandbox', url: 'http://127.0.0.1:8642/demo' });
    expect(store.list().map((p) => p.name)).toEqual(['prod', 'sandbox']);
    expect(prod.identifier).toMatch(/^svc-[A-Za-z0-9-]+-[0-9a-f]{12}$/);
    expect(store.current()).toBeUndefined();
    store.use('prod');
    expect(store.current()).toBe('prod');
    expect(() => store.use('prd')).toThrow("no profile 'prd'; did you mean 'prod'? (see 'svc profile list')");
    expect(store.remove('prod')).toBe(true);
    expect(store.current()).toBeUndefined();
    expect(store.remove('prod')).toBe(false);
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(store.path, 'utf8'))).toEqual({ profiles: { sandbox: expect.objectContaining({ url: 'http://127.0.0.1:8642/demo' }) } });
  });

  it('keeps the login identifier while the URL stays, and makes a new one when it changes', async () => {
    const store = await openProfiles(dir());
    const first = store.save({ name: 'p', url: 'https://a.example.com/x' });
    expect(store.save({ name: 'p', url: 'https://a.example.com/x', user: 'dana' }).identifier).toBe(first.identifier);
    expect(store.save({ name: 'p', url: 'https://b.example.com/x' }).identifier).not.toBe(first.identifier);
    expect(store.get('p')?.user).toBe('dana');
  });

  it('refuses names that would not survive a shell or a file name', async () => {
    const store = await openProfiles(dir());
    expect(() => store.save({ name: 'my prod', url: 'https://a.example.com/x' })).toThrow("invalid profile name 'my prod'");
  });
});
