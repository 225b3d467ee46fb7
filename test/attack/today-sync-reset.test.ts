/**
 * Attack on de97203 (svc sync --reset rebuilds each table with what it
 * remembers, and describeFilter names --tz): the rebuilt table must hold
 * exactly the records the copy was made with — the remembered --tz included,
 * whose date filter otherwise moves by hours — in both engines, and --status
 * names the --tz.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { insertAccounts, readCopy, tempDir } from '../sync/support.js';

const { sandbox, run } = sandboxCli();

describe.each(['sqlite', 'duckdb'])('attack today: svc sync --reset keeps a remembered --tz (%s)', (engine) => {
  it('the rebuilt table holds the same records, and --status names the --tz', async () => {
    const s = sandbox();
    const prefix = `TZR${engine}`;
    // 20:00 UTC on 10 January is 05:00 on the 11th in Tokyo: inside 'lastmodified >= 2026-01-11' only with --tz Asia/Tokyo.
    const inside = insertAccounts(s, 2, Date.UTC(2026, 0, 10, 20) / 1000, prefix);
    insertAccounts(s, 3, Date.UTC(2026, 0, 10, 12) / 1000, prefix);
    const target = join(tempDir(), `tz.${engine}`);
    const made = await run(['accounts', 'sync', '--into', target, '--filter', `lastname ~ "^${prefix}"`, '--filter', 'lastmodified >= 2026-01-11', '--tz', 'Asia/Tokyo', '--fields', 'ID,lastname,lastmodified']);
    expect(made.code, made.stderr).toBe(0);
    const ids = async () => (await readCopy(target, 'accounts')).rows.map((r) => Number(r.ID));
    expect(await ids()).toEqual(inside);
    const status = await run(['--no-pager', 'accounts', 'sync', '--into', target, '--status'], { tty: true, columns: 400, env: { NO_COLOR: '1' } });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain("--tz Asia/Tokyo");
    const reset = await run(['sync', '--into', target, '--reset']);
    expect(reset.code, reset.stderr).toBe(0);
    expect(await ids()).toEqual(inside);
    const copy = await readCopy(target, 'accounts');
    expect(JSON.parse(String(copy.state.filter))).toMatchObject({ tz: 'Asia/Tokyo' });
    expect(copy.state.fields).toBe('ID,lastname,lastmodified');
    // And a plain svc sync after it keeps them too.
    expect((await run(['sync', '--into', target])).code).toBe(0);
    expect(await ids()).toEqual(inside);
  }, 30_000);
});
