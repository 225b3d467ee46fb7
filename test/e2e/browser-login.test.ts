/**
 * `svc login --web` with a real browser: the built svc, spawned as a person
 * runs it, opens the sandbox's sign-in page in headless Chromium (Debian's
 * package; driven over the DevTools protocol with puppeteer-core), where the
 * test types like a person (user, password, then the two-factor code) and
 * approves; svc finishes signing in and the next command works. The Chromium
 * comes from `.ci/run` (apt); without it the test is skipped, saying so
 * (in CI it fails instead). On failure a screenshot of the page is kept in
 * test-artifacts/.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openProfiles } from '../../src/config/profiles.js';
import { decodeBase32, totp } from '../../src/sandbox/auth/totp.js';
import { tempConfigDir } from '../helpers/cli.js';
import { useTestSandbox } from '../helpers/sandbox.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const artifacts = join(root, 'test-artifacts');

describe('svc login --web in a real browser', () => {
  const sandbox = useTestSandbox({ record: true });
  let browser: Browser | undefined;

  beforeAll(async () => {
    if (!CHROMIUM) {
      if (process.env.CI) throw new Error('chromium is missing: .ci/run installs it with apt-get install chromium');
      return;
    }
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** The page svc opened: the first tab whose address is the sandbox's authorize endpoint. */
  async function signInPage(): Promise<Page> {
    const target = await browser!.waitForTarget((t) => t.url().includes('/demo/oauth2/v1/authorize'), { timeout: 30_000 });
    const page = await target.page();
    if (!page) throw new Error('the sign-in tab has no page');
    return page;
  }

  it('signs in a two-factor user: svc opens the page, the person types and approves, svc keeps the tokens', async (ctx) => {
    if (!browser) ctx.skip('no Chromium here (/usr/bin/chromium); apt-get install chromium to run it');
    const configDir = tempConfigDir();
    const profiles = await openProfiles(configDir);
    profiles.save({ name: 'sb', url: sandbox.instanceUrl, clientId: 'svc-cli' });
    profiles.use('sb');
    const secret = sandbox.sandbox.credentials.demo?.applications.find((a) => a.identifier === 'svc-cli')?.appsecret ?? '';
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: configDir,
      SVC_CONFIG_DIR: configDir,
      BROWSER: join(root, 'test', 'e2e', 'support', 'open-in-chromium.mjs'),
      SVC_TEST_CDP: browser!.wsEndpoint(),
      SVC_CLIENT_SECRET: secret,
      NO_COLOR: '1',
    };
    const child = spawn(process.execPath, [join(root, 'bin', 'svc.js'), 'login', '--web', '--insecure-storage', '--wait', '60s'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    let page: Page | undefined;
    try {
      page = await signInPage();
      await page.waitForSelector('#username');
      const user = sandbox.user('secure');
      await page.type('#username', user.name);
      await page.type('#password', user.password);
      await Promise.all([page.waitForNavigation(), page.click('#signin')]);
      await page.waitForSelector('#otp');
      await page.type('#otp', totp(decodeBase32(user.otpsecret ?? ''), Math.floor(Date.now() / 1000)));
      await Promise.all([page.waitForNavigation(), page.click('#verify')]);
      await page.waitForSelector('#approve');
      expect(await page.content()).toContain('svc command line');
      await Promise.all([page.waitForNavigation(), page.click('#approve')]);
      // The browser lands on svc's loopback page.
      expect(page.url()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
      expect(await page.content()).toContain('svc is signed in');
      expect(await exited, stderr).toBe(0);
      expect(stderr).toContain('signed in to sb as secure with a browser (client svc-cli;');
    } catch (err) {
      if (page) {
        mkdirSync(artifacts, { recursive: true });
        const file = join(artifacts, `browser-login-${Date.now()}.png`);
        await page.screenshot({ path: file }).catch(() => undefined);
        ctx.annotate?.(`screenshot: ${file}`);
      }
      child.kill('SIGTERM');
      throw new Error(`${(err as Error).message}\nsvc's stderr:\n${stderr}`);
    }
    const count = spawn(process.execPath, [join(root, 'bin', 'svc.js'), 'accounts', 'count', '-o', 'json'], { env: { ...env, SVC_CLIENT_SECRET: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    count.stdout.on('data', (c: Buffer) => (out += c.toString()));
    expect(await new Promise((resolve) => count.on('close', resolve))).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ count: expect.any(Number) });
  });
});
