/**
 * The pure parts of `svc sandbox`: options, data dir, the child's command line,
 * log redaction; and the command group in-process (help, no process control).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findBin, foregroundArgs } from '../../src/commands/sandbox/spawn.js';
import { redactLogLine } from '../../src/commands/sandbox/start/foreground.js';
import { resolveDataDir } from '../../src/commands/sandbox/data-dir.js';
import { parseFaults, parsePort, parseSeedAccounts } from '../../src/commands/sandbox/options.js';
import { svc } from '../helpers/cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('svc sandbox options', () => {
  it('finds the data dir: flag, SVC_SANDBOX_DIR, XDG_DATA_HOME, then HOME', () => {
    expect(resolveDataDir('/x/dir', { SVC_SANDBOX_DIR: '/y' })).toBe('/x/dir');
    expect(resolveDataDir(undefined, { SVC_SANDBOX_DIR: '/y', XDG_DATA_HOME: '/z' })).toBe('/y');
    expect(resolveDataDir(undefined, { XDG_DATA_HOME: '/z', HOME: '/h' })).toBe('/z/svc/sandbox');
    expect(resolveDataDir(undefined, { HOME: '/h' })).toBe('/h/.local/share/svc/sandbox');
    expect(resolveDataDir('rel', {})).toBe(join(process.cwd(), 'rel'));
  });

  it('checks ports and tenant sizes with one-line messages', () => {
    expect(parsePort('0')).toBe(0);
    expect(parsePort('8642')).toBe(8642);
    for (const bad of ['-1', '65536', 'http', '80.5', '']) {
      expect(() => parsePort(bad)).toThrow(`invalid port '${bad}'; give a number from 1 to 65535, or 0 for a free port`);
    }
    expect(parseSeedAccounts('5')).toBe(5);
    expect(() => parseSeedAccounts('0')).toThrow("invalid number of accounts '0'; give a whole number from 1 to 1000000");
    expect(parseFaults('0.1')).toBe(0.1);
    expect(parseFaults('1')).toBe(1);
    for (const bad of ['2', '-0.1', 'some', '']) {
      expect(() => parseFaults(bad)).toThrow(`--faults takes a share of requests from 0 to 1, e.g. 0.1, not '${bad}'`);
    }
  });

  it('starts the child with the same options in the foreground, from bin/svc.js', () => {
    expect(foregroundArgs({ dataDir: '/d', port: 0, https: true, seedAccounts: 7 })).toEqual([
      'sandbox', 'start', '--foreground', '--data-dir', '/d', '--port', '0', '--https', '--seed-accounts', '7',
    ]);
    expect(foregroundArgs({ dataDir: '/d', port: 8642, https: false })).toEqual(['sandbox', 'start', '--foreground', '--data-dir', '/d', '--port', '8642']);
    expect(foregroundArgs({ dataDir: '/d', port: 1, https: false, faults: 0.2 })).toEqual(['sandbox', 'start', '--foreground', '--data-dir', '/d', '--port', '1', '--faults', '0.2']);
    expect(findBin(join(root, 'dist', 'chunks', 'x.js'))).toBe(join(root, 'bin', 'svc.js'));
    expect(() => findBin('/nowhere/at/all.js')).toThrow('cannot find bin/svc.js above /nowhere/at/all.js; reinstall svc');
  });

  it('masks secrets in request log lines', () => {
    expect(redactLogLine('POST /demo/auth/v1/login?name=demo&password=s3cret&appsecret=x 200 3ms')).toBe(
      'POST /demo/auth/v1/login?name=demo&password=[redacted]&appsecret=[redacted] 200 3ms',
    );
    expect(redactLogLine('GET /demo/api/v1/accounts/5 200 1ms')).toBe('GET /demo/api/v1/accounts/5 200 1ms');
  });
});

describe('svc sandbox in-process', () => {
  it('documents the status exit codes in its help', async () => {
    const r = await svc(['sandbox', 'status', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Exit codes: 0 a sandbox runs from the data dir and answers; 3 none runs.');
  });

  it('says so when the deps cannot control processes', async () => {
    const r = await svc(['sandbox', 'status', '--data-dir', '/nonexistent'], { processes: false });
    expect(r).toEqual({ code: 1, stdout: '', stderr: 'svc: svc sandbox cannot control processes here; run it from the svc command line\n' });
  });
});
