import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKeychainStore } from '../../src/auth/keychain.js';
import { KeychainUnavailableError } from '../../src/auth/store.js';
import { keychainAvailable } from '../helpers/keychain.js';

const available = await keychainAvailable();
const root = new URL('../../', import.meta.url);

describe.skipIf(!available)('the OS keychain (skipped outside CI when no Secret Service answers)', () => {
  it('stores, reads and deletes a secret in the Secret Service', async () => {
    const service = `svc-test-${randomBytes(4).toString('hex')}`;
    const store = createKeychainStore({ service });
    const secret = randomBytes(20).toString('hex');
    await store.set('demo/token', secret);
    expect(await store.get('demo/token')).toBe(secret);
    // It is really in the Secret Service (not the memory-only kernel keyring).
    const lookup = spawnSync('secret-tool', ['lookup', 'service', service, 'username', 'demo/token'], { encoding: 'utf8' });
    expect(lookup.stdout).toBe(secret);
    expect(await store.delete('demo/token')).toBe(true);
    expect(await store.get('demo/token')).toBeUndefined();
    expect(await store.delete('demo/token')).toBe(false);
  });
});

describe('without a reachable keychain', () => {
  it('fails with KeychainUnavailableError instead of hanging or writing elsewhere', () => {
    const code = `
      import { createKeychainStore } from './src/auth/keychain.ts';
      try { await createKeychainStore({ timeoutMs: 2000 }).set('x/token', 'secret'); console.log('stored'); }
      catch (e) { console.log(e.name + ': ' + e.message); }`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      cwd: root,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' },
      timeout: 20_000,
    });
    expect(r.stdout.trim()).toMatch(/^KeychainUnavailableError: no usable OS keychain: /);
    expect(KeychainUnavailableError.name).toBe('KeychainUnavailableError');
  });
});
