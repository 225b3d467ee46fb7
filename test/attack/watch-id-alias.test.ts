/**
 * watch --fields that rename another field to ID (`ID=lastname`) or take a
 * name of the watch's own keys (`__svc_id=firstname`): before the fix the
 * first gave upserts whose "ID" was a last name while the deletes carried
 * the numeric ID (a consumer could not match them), and the second silently
 * dropped the user's field. Now both are usage errors (exit 2, one line),
 * checked before anything is sent; `ID` itself and other aliases still work.
 */
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';

const { sandbox, run } = sandboxCli();

describe('watch --fields: names the feed needs', () => {
  it.each([['ID=lastname'], ['id=lastname'], ['__svc_id=firstname,ID=lastname'], ['ID,__svc_lm=firstname']])('%s: exit 2, one line, nothing sent', async (fields) => {
    const before = sandbox().sandbox.hooks.requests.length;
    const r = await run(['accounts', 'watch', '--once', '--fields', fields]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--fields: .*another name \(alias=path\)/);
    expect(sandbox().sandbox.hooks.requests.length).toBe(before);
  });

  it('ID and other aliases still work', async () => {
    const r = await run(['accounts', 'watch', '--once', '--fields', 'ID,name=lastname']);
    expect(r.code, r.stderr).toBe(0);
    const first = JSON.parse(r.stdout.split('\n')[0] ?? '') as { record: Record<string, unknown> };
    expect(Object.keys(first.record)).toEqual(['ID', 'name']);
    expect(typeof first.record.ID).toBe('number');
  });
});
