/**
 * `svc sync --into TARGET FAMILY…`: several families into one database, each
 * with the filter and fields remembered for it; -o json an array of
 * summaries; quiet without -o and a terminal; a second sync into the same
 * target while one runs refuses at once, naming the process.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { syncSpec } from '../../../src/commands/sync/command.js';
import { UsageError } from '../../../src/errors.js';
import { sandboxCli } from '../../helpers/cli.js';
import { create, expectedRows, readCopy, remove, tempDir, update } from '../../sync/support.js';

const { sandbox, run } = sandboxCli();

function refusal(args: string[], flags: Record<string, unknown>): string {
  try {
    syncSpec.toOptions({ args: [args], flags });
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('not refused');
}

describe('svc sync: flags', () => {
  it('refuses an unknown family, one named twice, a bad target, in one line', () => {
    
    expect(refusal(['acounts'], { into: 'a.sqlite' })).toMatch(/unknown family 'acounts'; did you mean 'accounts'/);
    expect(refusal(['accounts', 'accounts'], { into: 'a.sqlite' })).toMatch(/named twice/);
    expect(refusal(['accounts'], { into: 'a.parquet' })).toMatch(/\.duckdb/);
    expect(refusal(['accounts'], {})).toMatch(/--into/);
  });
});

describe.each(['sqlite', 'duckdb'])('svc sync into %s', (engine) => {
  it('copies accounts and contacts into one file, remembers a family filter set with svc <family> sync, and keeps both in step', async () => {
    const s = sandbox();
    const target = join(tempDir(), `copy.${engine}`);
    const setUp = await run(['accounts', 'sync', '--into', target, '--filter', 'type = CUSTOMER', '--fields', 'ID,lastname,type,lastmodified']);
    // Without -o and without a terminal: nothing on stdout (cron).
    expect(setUp).toEqual({ code: 0, stdout: '', stderr: '' });
    const doomed = await create(s, 'contacts', { lastname: 'Short-lived', firstname: 'Kurt' });
    await create(s, 'accounts', { lastname: 'Fresh customer', currency: 'EUR', type: 1 });
    const first = await run(['sync', '--into', target, 'accounts', 'contacts', '-o', 'json']);
    expect(first.code, first.stderr).toBe(0);
    const summaries = JSON.parse(first.stdout) as Record<string, unknown>[];
    expect(summaries.map((x) => x.family)).toEqual(['accounts', 'contacts']);
    expect(summaries[1]).toMatchObject({ deleted: 0, updated: 0 });
    expect(Object.keys(summaries[0] ?? {})).toEqual(['family', 'inserted', 'updated', 'deleted', 'pages', 'seconds', 'cursor']);

    await remove(s, 'contacts', doomed);
    const someContact = (await readCopy(target, 'contacts')).rows[0]?.ID;
    await update(s, 'contacts', Number(someContact), { city: 'Zürich' });
    const second = await run(['sync', '--into', target, 'accounts', 'contacts', '-o', 'json']);
    expect(second.code, second.stderr).toBe(0);
    expect((JSON.parse(second.stdout) as Record<string, unknown>[])[1]).toMatchObject({ family: 'contacts', deleted: 1 });

    const accounts = await readCopy(target, 'accounts');
    expect(accounts.rows).toEqual(expectedRows(await run(['accounts', 'query', '--all', '--filter', 'type = CUSTOMER', '--fields', 'ID,lastname,type,lastmodified', '-o', 'json']), accounts.columns));
    const contacts = await readCopy(target, 'contacts');
    const fields = contacts.columns.map((c) => c.name).join(',');
    expect(contacts.rows).toEqual(expectedRows(await run(['contacts', 'query', '--all', '--fields', fields, '-o', 'json']), contacts.columns));
    expect(contacts.rows.find((r) => r.ID === someContact)?.city).toBe('Zürich');

    // A table: one row a family.
    const table = await run(['sync', '--into', target, 'accounts', 'contacts', '-o', 'table']);
    expect(table.stdout).toMatch(/^FAMILY\s+INSERTED\s+UPDATED\s+DELETED\s+PAGES\s+SECONDS\s+CURSOR\naccounts\s+0\s+0\s+0\s/);
  }, 60_000);
});

describe('svc sync: one at a time', () => {
  it('a second sync into the same target while one runs refuses at once, naming its pid; the first finishes', async () => {
    const s = sandbox();
    const target = join(tempDir(), 'copy.sqlite');
    // The first run's first request is held 5 s by the sandbox: the second comes meanwhile.
    let arrived: () => void = () => undefined;
    const waiting = new Promise<void>((r) => (arrived = r));
    let first = true;
    s.sandbox.hooks.onArrival = (method, url) => {
      if (first && method === 'POST' && url.includes('/api/v1/accounts')) {
        first = false;
        s.sandbox.hooks.failNext({ path: '/api/v1/accounts', fault: { delayMs: 5000 } });
        arrived();
      }
    };
    const running = run(['sync', '--into', target, 'accounts']);
    await waiting;
    const second = await run(['sync', '--into', target, 'accounts']);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`^svc: another sync into .*copy\\.sqlite is running \\(pid ${process.pid} .*\\n$`));
    expect(second.stderr.split('\n').length).toBe(2);
    s.sandbox.hooks.onArrival = undefined;
    expect((await running).code).toBe(0);
  }, 60_000);
});
