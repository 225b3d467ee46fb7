import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportVerb } from '../../../src/commands/records/export/command.js';
import type { ExportOptions } from '../../../src/commands/records/export/options.js';
import { sandboxCli } from '../../helpers/cli.js';
import { family, NO_FILTER, optionsOf, refusal } from './support.js';

const tempDir = (): string => mkdtempSync(join(tmpdir(), 'svc-export-cmd-'));

describe('accounts export: flags → options', () => {
  it('has the defaults of a plain export', () => {
    expect(optionsOf<ExportOptions>(exportVerb, 'accounts')).toEqual({
      ...NO_FILTER,
      family: family('accounts'),
      pageSize: 1000,
      resume: false,
      manifest: false,
      serverSide: false,
      progress: false,
      quiet: false,
    });
  });

  it('keeps --fields as typed and parsed, and reads the paging, file and switch flags', () => {
    const opts = optionsOf<ExportOptions>(exportVerb, 'accounts', {
      flags: { fields: 'ID,name=lastname', format: 'csv', outputFile: 'a.csv', pageSize: '500', concurrency: '4', shard: '2/4', resume: true, manifest: true, quiet: true },
    });
    expect(opts).toMatchObject({
      fields: 'ID,name=lastname',
      selected: [
        { name: 'ID', path: 'ID' },
        { name: 'name', path: 'lastname' },
      ],
      format: 'csv',
      outputFile: 'a.csv',
      pageSize: 500,
      concurrency: 4,
      shard: '2/4',
      resume: true,
      manifest: true,
      quiet: true,
    });
  });

  it('refuses bad numbers and unknown fields with a usage error', () => {
    expect(refusal(exportVerb, 'accounts', { flags: { pageSize: '0' } })).toBe("--page-size takes a whole number from 1 to 10000, not '0'");
    expect(refusal(exportVerb, 'accounts', { flags: { concurrency: '33' } })).toBe("--concurrency takes a whole number from 1 to 32, not '33'");
    expect(refusal(exportVerb, 'accounts', { flags: { fields: 'ID,lastnme' } })).toBe("unknown field 'lastnme' on accounts; did you mean 'lastname'? (run 'svc describe accounts')");
  });
});

describe('accounts export: options → what the user sees', () => {
  const { sandbox, run } = sandboxCli();
  const MARK = 'ExportCmd';
  const mine = JSON.stringify({ lastname: { '~~': `${MARK}%` } });
  const ids: number[] = [];

  beforeAll(async () => {
    for (const name of ['plain', 'with, comma', 'say "hi"']) {
      const r = await sandbox().call('PUT', 'api/v1/accounts', { json: { lastname: `${MARK} ${name}`, currency: 'EUR' } });
      ids.push(r.json<{ ID: number }>().ID);
    }
  });

  it('writes a csv file named by the global --output, format from its extension, paged by ID', async () => {
    const file = join(tempDir(), 'accounts.csv');
    const r = await run(['accounts', 'export', '--filter-json', mine, '--fields', 'ID,lastname', '--page-size', '2', '--output', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(readFileSync(file, 'utf8')).toBe(`ID,lastname\n${ids[0]},${MARK} plain\n${ids[1]},"${MARK} with, comma"\n${ids[2]},"${MARK} say ""hi"""\n`);
    const pages = sandbox().sandbox.hooks.requests.filter((q) => !(q.body as { count?: boolean }).count);
    expect(pages.length).toBeGreaterThanOrEqual(2);
    expect(pages[0]?.body).toMatchObject({ fields: { ID: 'ID', lastname: 'lastname' }, sort: ['+ID'], limit: 2 });
  });

  it('writes ndjson to stdout with --format, and the first page request with --print-request', async () => {
    const nd = await run(['accounts', 'export', '--filter-json', mine, '--fields', 'lastname', '--format', 'ndjson']);
    expect(nd.code, nd.stderr).toBe(0);
    expect(nd.stdout).toBe(`{"lastname":"${MARK} plain"}\n{"lastname":"${MARK} with, comma"}\n{"lastname":"${MARK} say \\"hi\\""}\n`);
    sandbox().sandbox.hooks.reset();
    sandbox().sandbox.hooks.record = true;
    const shown = await run(['accounts', 'export', '--filter', 'ID > 100', '--fields', 'ID', '--format', 'csv', '--page-size', '10', '--print-request']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual({ filters: { ID: { '>': 100 } }, fields: { ID: 'ID' }, sort: ['+ID'], limit: 10 });
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });

  it.each([
    [['--format', 'xml'], "unknown export format 'xml'; choose csv, ndjson, json or parquet"],
    [[], 'export needs a format: --format csv, ndjson, json or parquet'],
    [['--format', 'json', '--shard', '1/2'], '--shard cannot write json (concatenated arrays are not one document); use --format ndjson, csv or parquet'],
    [['--format', 'csv', '--shard', '3/2'], "--shard takes K/N or auto/N with 1 <= K <= N <= 1000, e.g. 2/4 or auto/4, not '3/2'"],
    [['--format', 'csv', '--resume'], '--resume needs --output-file FILE'],
    [['--format', 'csv', '--server-side', '--concurrency', '2'], '--server-side is one request: drop --shard, --concurrency and --resume'],
    [['--output', 'a.csv', '--output-file', 'b.csv'], 'give the file once: --output a.csv and --output-file b.csv'],
  ])('refuses %j with exit 2 and nothing sent', async (flags, message) => {
    const r = await run(['accounts', 'export', ...flags]);
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: `svc: ${message}\n` });
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });
});
