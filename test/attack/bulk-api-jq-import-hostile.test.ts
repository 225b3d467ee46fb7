/**
 * Attack round on `svc <family> import`: hostile input files. Each must end
 * promptly with one line on stderr naming the problem and the fix, a
 * documented exit code, and nothing sent. The wide CSV runs the built svc
 * (`node bin/svc.js`) so that a run that never ends can be stopped by the
 * test instead of blocking it.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { sandboxCli, tempConfigDir } from '../helpers/cli.js';
import { rowsFile } from '../commands/records/import-support.js';

const { sandbox, run } = sandboxCli();

/** Runs the built svc; kills it after `limitMs` (then `killed` is true). */
async function builtSvc(args: readonly string[], limitMs: number): Promise<{ code: number | null; killed: boolean; stderr: string; ms: number }> {
  const s = sandbox();
  const env = { ...process.env, SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' };
  const t0 = Date.now();
  const child = spawn(process.execPath, ['bin/svc.js', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  let killed = false;
  const deadline = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, limitMs);
  const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
  clearTimeout(deadline);
  return { code, killed, stderr, ms: Date.now() - t0 };
}

/** C0 controls other than the line feed, DEL and C1 controls: what should never reach a terminal from a message. */
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f\x80-\x9f]/;

describe('accounts import: hostile input files (attack round)', () => {
  it('a CSV of 100,000 columns is answered within 10 s (it was quadratic in the columns: 2,000 → 0.5 s, 4,000 → 2.4 s)', async () => {
    const n = 100_000;
    const csv = `lastname,currency,${Array.from({ length: n }, (_, i) => `extdata.c${i}`).join(',')}\nWide,EUR,${Array.from({ length: n }, () => 'x').join(',')}\n`;
    const r = await builtSvc(['accounts', 'import', '--from', rowsFile('wide.csv', csv), '--dry-run'], 10_000);
    expect(r.killed, `still running after ${r.ms} ms; stderr: ${r.stderr.slice(0, 300)}`).toBe(false);
    expect(sandbox().sandbox.hooks.requests.filter((q) => q.method !== 'POST')).toEqual([]);
  }, 20_000);

  it('a UTF-16 file without a byte-order mark is refused as UTF-16, in one line, exit 2 (not read as field names full of NULs)', async () => {
    const r = await run(['accounts', 'import', '--from', rowsFile('u16.csv', Buffer.from('lastname,currency\nA,EUR\n', 'utf16le'))]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^svc: .*u16\.csv is UTF-16 or UTF-32 text; save it as UTF-8 and import it again\n$/);
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });

  it('control characters in a header name (NUL, an escape sequence) never reach stderr raw', async () => {
    const csv = 'last\u0000name,\u001b]0;owned\u0007currency\nA,EUR\n';
    const r = await run(['accounts', 'import', '--from', rowsFile('ctl.csv', csv)]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr, JSON.stringify(r.stderr)).not.toMatch(CONTROL);
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });

  it('headers that differ only by case, a lone __proto__ header and an unclosed quote: exit 2, named, nothing sent (passes)', async () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const cases: [string, string, RegExp][] = [
      ['case.csv', 'lastname,LastName,currency\nA,B,EUR\n', /line 2: unknown field 'LastName' on accounts; did you mean 'lastname'\?/],
      ['proto.csv', '__proto__\nx\n', /line 2: unknown field '__proto__' on accounts/],
      ['quote.csv', 'lastname,currency\n"Ab,EUR\nC,EUR\n', /line 2: a quoted value opened on line 2 is never closed; close it with "/],
    ];
    for (const [name, text, want] of cases) {
      const r = await run(['accounts', 'import', '--from', rowsFile(name, text)]);
      expect(r.code, name).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(want);
      expect(r.stderr).toMatch(/nothing was sent: fix them, or pass --skip-invalid to import the others\n$/);
    }
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
  });
});
