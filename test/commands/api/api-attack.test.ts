/**
 * `svc api` paths that a server or a proxy in front of it could turn into a
 * path out of the interface: encoded slashes and dot segments (once or twice
 * encoded), `..;` path parameters, and control characters the URL parser
 * drops. Each is refused before anything is sent, in a path or a full URL.
 */
import { describe, expect, it } from 'vitest';
import { locate, parseTarget } from '../../../src/commands/api/request.js';
import { UsageError } from '../../../src/errors.js';
import { parseInstanceUrl } from '../../../src/http/urls.js';
import { sandboxCli } from '../../helpers/cli.js';

const roots = parseInstanceUrl('https://erp.example.com/acme');

function refusal(text: string): string {
  try {
    locate(parseTarget(text), roots);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error(`'${text}' was not refused`);
}

describe('svc api: paths that could escape the interface', () => {
  it.each([
    'accounts/%2F..%2F..%2Fauth',
    'accounts/%2f%2e%2e',
    'accounts/..%5cconfig',
    'accounts/%252e%252e/%252e%252e/x',
    'accounts/%25252e%25252e/x',
    'accounts/..;/..;/config',
    'accounts/.;x/x',
    'https://erp.example.com/acme/api/v1/..%2f..%2fx',
    'https://erp.example.com/acme/api/v1/accounts/..;/x',
  ])('refuses %j', (text) => {
    expect(refusal(text)).toMatch(/encodes a '\/', a '\\' or a '\.' or '\.\.' segment|has a '\.' or '\.\.' segment/);
  });

  it.each(['accounts/.\t./x', 'accounts/\n1', 'accounts/1\r'])('refuses a control character in %j (the URL parser would drop it)', (text) => {
    expect(refusal(text)).toMatch(/holds a control character/);
  });

  it('still sends ordinary encoded values and dots inside names', () => {
    expect(locate(parseTarget('accounts?filter=a%2Fb'), roots)).toEqual({ kind: 'path', root: 'api', path: '/accounts?filter=a%2Fb' });
    expect(locate(parseTarget('files/report.v1..txt'), roots)).toEqual({ kind: 'path', root: 'api', path: '/files/report.v1..txt' });
    expect(locate(parseTarget('accounts/%20x'), roots)).toEqual({ kind: 'path', root: 'api', path: '/accounts/%20x' });
  });
});

describe('svc api: an escaping path against a sandbox', () => {
  const { run } = sandboxCli();
  it('exits 2 with one line and sends nothing', async () => {
    const r = await run(['api', 'accounts/%2e%2e%2f%2e%2e%2fconfig']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe("svc: the path 'accounts/%2e%2e%2f%2e%2e%2fconfig' encodes a '/', a '\\' or a '.' or '..' segment; svc api sends paths as given: name the path itself\n");
  });
});

describe('svc api: a body file that never ends', () => {
  const { run } = sandboxCli();
  it('refuses -F key=@/dev/zero and --input /dev/zero past the limit, sending nothing', async () => {
    for (const args of [['api', 'accounts', '-F', 'description=@/dev/zero'], ['api', 'accounts', '--input', '/dev/zero']]) {
      const r = await run(args);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe("svc: '/dev/zero' holds more than 64 MiB; svc api sends bodies up to that size (split the request, or send it with another client)\n");
    }
  }, 30_000);
});
