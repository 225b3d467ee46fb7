import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openProfiles } from '../../src/config/profiles.js';
import { UsageError } from '../../src/errors.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
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

describe('reading and writing the config file', () => {
  it('reads without writing: an absent file is no profiles, and nothing is created', async () => {
    const d = join(dir(), 'config');
    const store = await openProfiles(d);
    expect(store.list()).toEqual([]);
    expect(store.current()).toBeUndefined();
    expect(existsSync(d)).toBe(false);
  });

  it('writes through conf: tab-indented JSON, mode 0600, read back by a fresh store', async () => {
    const d = dir();
    const store = await openProfiles(d);
    const saved = store.save({ name: 'prod', url: 'https://erp.example.com/acme', user: 'dana' });
    store.use('prod');
    const text = readFileSync(join(d, 'config.json'), 'utf8');
    expect(text).toBe(
      `{\n\t"profiles": {\n\t\t"prod": {\n\t\t\t"url": "https://erp.example.com/acme",\n\t\t\t"user": "dana",\n\t\t\t"identifier": "${saved.identifier}"\n\t\t}\n\t},\n\t"current": "prod"\n}`,
    );
    expect(statSync(join(d, 'config.json')).mode & 0o777).toBe(0o600);
    const again = await openProfiles(d);
    expect(again.get('prod')).toEqual(saved);
    expect(again.current()).toBe('prod');
  });

  it('sees changes made after it was opened, as conf does (it reads the file at each call)', async () => {
    const d = dir();
    const reader = await openProfiles(d);
    const writer = await openProfiles(d);
    writer.save({ name: 'later', url: 'https://a.example.com/x' });
    expect(reader.list().map((p) => p.name)).toEqual(['later']);
  });

  it('refuses a config file that is not JSON in one line naming the file and the fix (an empty one too)', async () => {
    for (const text of ['{ "profiles": ', '']) {
      const d = dir();
      writeFileSync(join(d, 'config.json'), text);
      const store = await openProfiles(d);
      expect(() => store.list()).toThrow(UsageError);
      expect(() => store.list()).toThrow(new RegExp(`^cannot read ${join(d, 'config.json').replace(/[.]/g, '\\.')}: not valid JSON \\(.+\\); fix it, or remove it and add the profiles again$`));
    }
  });

  it('reads only what the file holds: "__proto__" and "constructor" are names, never the prototype', async () => {
    const d = dir();
    const url = 'http://127.0.0.1:1/x';
    writeFileSync(join(d, 'config.json'), JSON.stringify({ ['__proto__']: { profiles: { a: { url } }, current: 'a' } }).replace('"__proto__"', '"__proto__"'));
    const store = await openProfiles(d);
    expect(store.list()).toEqual([]);
    expect(store.current()).toBeUndefined();
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(store.get(name)).toBeUndefined();
      expect(() => store.use(name)).toThrow(UsageError);
    }
    const nested = dir();
    writeFileSync(join(nested, 'config.json'), '{"profiles": {"__proto__": {"url": "http://127.0.0.1:1/y"}}, "current": "x"}');
    const other = await openProfiles(nested);
    expect(other.get('constructor')).toBeUndefined();
    expect(other.get('url')).toBeUndefined();
  });

  it.skipIf(!existsSync(join(root, 'dist/svc.cjs')))('the built svc writes the same file through its bundled conf', () => {
    const d = dir();
    const svc = (...args: string[]) => spawnSync(process.execPath, [join(root, 'bin/svc.js'), ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: d, SVC_CONFIG_DIR: d } });
    expect(svc('profile', 'list', '-o', 'json').stdout).toBe('[]\n');
    expect(existsSync(join(d, 'config.json'))).toBe(false);
    const added = svc('profile', 'add', 'prod', '--url', 'https://erp.example.com/acme');
    expect(added.status, added.stderr).toBe(0);
    const data = JSON.parse(readFileSync(join(d, 'config.json'), 'utf8')) as { profiles: Record<string, { identifier: string }>; current: string };
    const identifier = data.profiles.prod?.identifier ?? '';
    expect(readFileSync(join(d, 'config.json'), 'utf8')).toBe(
      `{\n\t"profiles": {\n\t\t"prod": {\n\t\t\t"url": "https://erp.example.com/acme",\n\t\t\t"identifier": "${identifier}"\n\t\t}\n\t},\n\t"current": "prod"\n}`,
    );
    expect(statSync(join(d, 'config.json')).mode & 0o777).toBe(0o600);
  });
});

describe('config.json that svc would never have written (s10)', () => {
  const refused = async (d: string, pattern: RegExp): Promise<void> => {
    const store = await openProfiles(d);
    expect(() => store.list()).toThrow(UsageError);
    expect(() => store.list()).toThrow(pattern);
  };

  it('a FIFO or a link to /dev/zero in its place is refused at once, naming the file, never read', async () => {
    const d = dir();
    spawnSync('mkfifo', [join(d, 'config.json')]);
    await refused(d, /config\.json \(it is a named pipe \(FIFO\), not a file\)/);
    const z = dir();
    spawnSync('ln', ['-s', '/dev/zero', join(z, 'config.json')]);
    await refused(z, /config\.json \(it is a device, not a file\)/);
    // Nor does a write read it: the file stays what it was.
    const store = await openProfiles(d);
    expect(() => store.save({ name: 'a', url: 'https://erp.example.com/acme' })).toThrow(/not a file/);
  });

  it.each([
    ['[{"url":"https://erp.example.com/acme"}]', /it is a list, not the JSON object svc writes/],
    ['"svc"', /it is a string/],
    ['42', /it is a number/],
    ['{"profiles":"abc"}', /its "profiles" is a string, not an object/],
    ['{"profiles":[]}', /its "profiles" is a list/],
  ])('JSON that is not its object (%s) is refused, and no write changes the file', async (text, why) => {
    const d = dir();
    writeFileSync(join(d, 'config.json'), text);
    await refused(d, why);
    const store = await openProfiles(d);
    expect(() => store.save({ name: 'x', url: 'https://erp.example.com/acme' })).toThrow(why);
    expect(() => store.remove('x')).toThrow(why);
    expect(readFileSync(join(d, 'config.json'), 'utf8')).toBe(text);
  });

  it('a byte-order mark is read past, and a write drops it', async () => {
    const d = dir();
    writeFileSync(join(d, 'config.json'), `\ufeff${JSON.stringify({ current: 'a', profiles: { a: { url: 'https://erp.example.com/acme', identifier: 'i' } } })}`);
    const store = await openProfiles(d);
    expect(store.get('a')?.url).toBe('https://erp.example.com/acme');
    store.save({ name: 'b', url: 'https://erp.example.com/acme' });
    expect(Object.keys((JSON.parse(readFileSync(store.path, 'utf8')) as { profiles: object }).profiles)).toEqual(['a', 'b']);
  });

  it('bytes that are not UTF-8 are refused naming the file, and a write leaves them as they were', async () => {
    const d = dir();
    const raw = Buffer.concat([Buffer.from('{"profiles":{"b'), Buffer.from([0xc3]), Buffer.from('":{"url":"https://erp.example.com/acme","identifier":"j"}}}')]);
    writeFileSync(join(d, 'config.json'), raw);
    await refused(d, /config\.json: it holds bytes that are not UTF-8/);
    const store = await openProfiles(d);
    expect(() => store.save({ name: 'c', url: 'https://erp.example.com/acme' })).toThrow(/not UTF-8/);
    expect(readFileSync(join(d, 'config.json')).equals(raw)).toBe(true);
  });

  it('a hand-edited name is written back as it is (a login saves its user), while a new one is still checked', async () => {
    const d = dir();
    writeFileSync(join(d, 'config.json'), JSON.stringify({ profiles: { 'my prod': { url: 'https://erp.example.com/acme', identifier: 'i' } } }));
    const store = await openProfiles(d);
    expect(store.save({ ...store.get('my prod')!, user: 'dana' }).user).toBe('dana');
    expect(() => store.save({ name: 'my test', url: 'https://erp.example.com/acme' })).toThrow(/invalid profile name/);
  });

  it.each(['javascript:alert(1)', 'https://erp.example.com', 'http://erp.example.com/acme'])('a URL svc cannot use (%s) is refused naming the profile and the fix; the profile commands still see it', async (url) => {
    const d = dir();
    writeFileSync(join(d, 'config.json'), JSON.stringify({ profiles: { a: { url, identifier: 'i' } } }));
    const store = await openProfiles(d);
    expect(() => store.get('a')).toThrow(/^profile 'a' in .*config\.json has a URL svc cannot use \(.*\); set it with 'svc profile add a --url https:\/\/erp\.example\.com\/acme', or remove it with 'svc profile remove a'$/);
    expect(store.get('a', { anyUrl: true })?.url).toBe(url);
    expect(store.list().map((p) => p.name)).toEqual(['a']);
  });
});
