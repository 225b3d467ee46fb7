/**
 * Attack on 2f50afd (--jq on a write that prints no JSON is exit 2 "before
 * anything is read or sent"): the refusal must come before the body is read
 * — a --data-file, or standard input a pipe hands over once — not after it.
 * A --data-file that cannot be read shows the order: the refusal of --jq must
 * be what is said, not the file's error.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { tempDir } from '../sync/support.js';

const { sandbox, run } = sandboxCli();
const sent = (): number => sandbox().sandbox.hooks.requests.filter((r) => r.url.includes('/api/v1/')).length;
const JQ = /^svc: --jq filters JSON output, and .* prints none; leave out --jq\n$/;

describe('attack today: --jq refused before the body is read', () => {
  it.each([
    ['create --dry-run', ['accounts', 'create', '--dry-run']],
    ['update ID --dry-run', ['accounts', 'update', '1', '--dry-run']],
    ['update --filter', ['accounts', 'update', '--filter', 'ID = 1', '--yes']],
  ])('%s --data-file MISSING --jq .: the --jq refusal, not the file\'s error', async (_what, argv) => {
    const missing = join(tempDir(), 'no-such-body.json');
    const n = sent();
    const r = await run([...argv, '--data-file', missing, '--jq', '.']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(sent()).toBe(n);
    expect(r.stderr).toMatch(JQ);
  }, 20_000);

  it('update --filter --data-file - --jq .: standard input is left unread (the refusal comes first)', async () => {
    const n = sent();
    const r = await run(['accounts', 'update', '--filter', 'ID = 1', '--yes', '--data-file', '-', '--jq', '.'], { stdin: ['{"lastname": "not json at all'] });
    expect(r.code).toBe(2);
    expect(sent()).toBe(n);
    // Read first, the body's parse error is what is said.
    expect(r.stderr).toMatch(JQ);
  }, 20_000);
});
