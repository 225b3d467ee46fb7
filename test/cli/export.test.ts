import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Capture, sandboxCli } from '../helpers/cli.js';
import { parseCsv, seedTrickyAccounts, sha256File, tempDir } from '../export/support.js';

const { sandbox, run } = sandboxCli();
const N = 3000;
let all: Record<string, unknown>[] = [];
let allCsv = '';

beforeAll(async () => {
  seedTrickyAccounts(sandbox(), N);
  const q = await run(['accounts', 'query', '--all', '-o', 'json']);
  expect(q.code).toBe(0);
  all = JSON.parse(q.stdout) as Record<string, unknown>[];
  allCsv = (await run(['accounts', 'query', '--all', '-o', 'csv'])).stdout;
}, 60_000);

/** A pipe with a slow reader: every write fills it, and it drains after the pending I/O. */
class SlowPipe extends Capture {
  writesWhileFull = 0;
  drains = 0;
  private full = false;
  private readonly waiting: (() => void)[] = [];
  constructor() {
    super(false);
  }
  override write(chunk: string | Uint8Array): boolean {
    if (this.full) this.writesWhileFull++;
    super.write(chunk);
    this.full = true;
    setImmediate(() => {
      this.full = false;
      this.drains++;
      for (const listener of this.waiting.splice(0)) listener();
    });
    return false;
  }
  once(_event: 'drain', listener: () => void): this {
    this.waiting.push(listener);
    return this;
  }
}

async function exportTo(file: string, ...args: string[]) {
  return run(['accounts', 'export', '--output-file', file, ...args]);
}

describe('svc <family> export: formats', () => {
  it('writes ndjson that parses back to exactly the records of query --all', async () => {
    const file = join(tempDir(), 'a.ndjson');
    const r = await exportTo(file, '--format', 'ndjson', '--page-size', '700');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const rows = readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as unknown);
    expect(rows.length).toBeGreaterThanOrEqual(N);
    expect(rows).toEqual(all);
  });

  it('writes one valid json array, the same records', async () => {
    const file = join(tempDir(), 'a.json');
    expect((await exportTo(file, '--format', 'json')).code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(all);
  });

  it('writes RFC 4180 csv: the bytes of query --all -o csv, values intact', async () => {
    const file = join(tempDir(), 'a.csv');
    expect((await exportTo(file, '--format', 'csv', '--page-size', '333')).code).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).toBe(allCsv);
    const [header = [], ...rows] = parseCsv(text);
    expect(rows).toHaveLength(all.length);
    const byName = rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
    const tricky = all.filter((a) => String(a.description).includes('\n'));
    expect(tricky.length).toBeGreaterThan(100);
    for (const a of tricky.slice(0, 50)) {
      expect(byName.find((r) => r.ID === String(a.ID))).toMatchObject({ lastname: a.lastname, description: a.description });
    }
  });

  it('takes the format from the file name, and writes to stdout without a file', async () => {
    const file = join(tempDir(), 'b.ndjson');
    expect((await exportTo(file)).code).toBe(0);
    const out = await run(['accounts', 'export', '--format', 'ndjson']);
    expect(out.code).toBe(0);
    expect(out.stdout).toBe(readFileSync(file, 'utf8'));
  });

  it('exports selected fields with an alias, the ID fetched for paging but not written', async () => {
    const file = join(tempDir(), 'f.csv');
    const r = await exportTo(file, '--format', 'csv', '--fields', 'lastname,kind=type', '--filter', 'type = 1', '--page-size', '100');
    expect(r.code).toBe(0);
    const [header, ...rows] = parseCsv(readFileSync(file, 'utf8'));
    expect(header).toEqual(['lastname', 'kind']);
    expect(rows).toHaveLength(all.filter((a) => a.type === 1).length);
    expect(rows.every((row) => row[1] === '1')).toBe(true);
  });

  it.each([
    ['export', ['accounts', 'export', '--format', 'csv', '--page-size', '500', '--concurrency', '2']],
    ['query --all', ['accounts', 'query', '--all', '-o', 'csv']],
  ])('%s writes to a slow pipe at its reader\'s pace: never more while it is full, nothing lost', async (_name, argv) => {
    const pipe = new SlowPipe();
    const r = await run(argv, { stdout: pipe });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe(allCsv);
    expect(pipe.drains).toBeGreaterThanOrEqual(6);
    expect(pipe.writesWhileFull).toBe(0);
  });
});

describe('svc <family> export: parallel and sharded', () => {
  it('gives the same bytes with --concurrency 4 as with 1', async () => {
    const dir = tempDir();
    expect((await exportTo(join(dir, 'one.csv'), '--format', 'csv', '--page-size', '250')).code).toBe(0);
    expect((await exportTo(join(dir, 'four.csv'), '--format', 'csv', '--page-size', '250', '--concurrency', '4')).code).toBe(0);
    expect(sha256File(join(dir, 'four.csv'))).toBe(sha256File(join(dir, 'one.csv')));
  });

  it('with a filter, --concurrency 4 writes the bytes of one request at a time, sizing its chunks without a count', async () => {
    const dir = tempDir();
    const filter = ['--filter', 'type = 1', '--format', 'ndjson', '--page-size', '100'];
    expect((await exportTo(join(dir, 'one.ndjson'), ...filter)).code).toBe(0);
    sandbox().sandbox.hooks.requests.length = 0;
    expect((await exportTo(join(dir, 'four.ndjson'), ...filter, '--concurrency', '4')).code).toBe(0);
    const rows = readFileSync(join(dir, 'four.ndjson'), 'utf8').trimEnd().split('\n');
    expect(rows).toHaveLength(all.filter((a) => a.type === 1).length);
    expect(sha256File(join(dir, 'four.ndjson'))).toBe(sha256File(join(dir, 'one.ndjson')));
    const bodies = sandbox().sandbox.hooks.requests.map((r) => r.body as Record<string, unknown>);
    expect(bodies.some((b) => b.count === true)).toBe(false);
    // Chunks sized from the sample hold about a page each: few requests beyond one per page.
    const pages = bodies.filter((b) => b.limit === 100 && !b.fields);
    expect(pages.length).toBeLessThanOrEqual(Math.ceil(rows.length / 100) * 2 + 4);
  });

  it('draws a progress line on a terminal with --progress, clears it at the end and says what it wrote', async () => {
    const file = join(tempDir(), 'p.csv');
    const r = await run(['accounts', 'export', '--output-file', file, '--format', 'csv', '--progress', '--concurrency', '2'], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^\r\x1b\[Kaccounts export: .*rows {2}[\d,]+ rows\/s/);
    expect(r.stderr).toMatch(new RegExp(`\\r\\x1b\\[Ksvc: exported ${all.length.toLocaleString('en-US')} accounts to .*p\\.csv\\n$`));
    expect(readFileSync(file, 'utf8')).toBe(allCsv);
  });

  it('with --progress into a log (no terminal), writes plain progress lines, never a redraw\'s control characters', async () => {
    const file = join(tempDir(), 'p.csv');
    const r = await exportTo(file, '--format', 'csv', '--progress', '--concurrency', '2');
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/[\r\x1b]/);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^accounts export: .*rows {2}[\d,]+ rows\/s/);
    expect(lines.at(-1)).toMatch(new RegExp(`^svc: exported ${all.length.toLocaleString('en-US')} accounts to .*p\\.csv$`));
    expect(readFileSync(file, 'utf8')).toBe(allCsv);
  });

  it.each(['csv', 'ndjson'])('writes %s shards that concatenate to the full export', async (format) => {
    const dir = tempDir();
    expect((await exportTo(join(dir, `full.${format}`), '--format', format)).code).toBe(0);
    const parts: string[] = [];
    for (const k of [1, 2, 3]) {
      const part = join(dir, `part-${k}.${format}`);
      const r = await exportTo(part, '--format', format, '--shard', `${k}/3`, '--concurrency', '2', '--page-size', '400');
      expect(r.code).toBe(0);
      parts.push(readFileSync(part, 'utf8'));
    }
    expect(parts.every((p) => p.length > 0)).toBe(true);
    expect(parts.join('')).toBe(readFileSync(join(dir, `full.${format}`), 'utf8'));
  });

  it('refuses json shards and bad shard specs (exit 2, nothing sent)', async () => {
    expect((await run(['accounts', 'export', '--format', 'json', '--shard', '1/2'])).stderr).toMatch(/--shard cannot write json/);
    const r = await run(['accounts', 'export', '--format', 'csv', '--shard', '3/2']);
    expect(r.code).toBe(2);
    expect(sandbox().sandbox.hooks.requests).toHaveLength(0);
  });
});

describe('svc <family> export: files', () => {
  it('writes a manifest with rows, sha256, filter, fields, times and version', async () => {
    const file = join(tempDir(), 'm.csv');
    const r = await exportTo(file, '--format', 'csv', '--filter', 'type = 2', '--fields', 'ID,lastname', '--manifest');
    expect(r.code).toBe(0);
    const m = JSON.parse(readFileSync(`${file}.manifest.json`, 'utf8')) as Record<string, unknown>;
    expect(m).toMatchObject({
      file,
      family: 'accounts',
      format: 'csv',
      rows: all.filter((a) => a.type === 2).length,
      sha256: sha256File(file),
      bytes: readFileSync(file).length,
      fields: { ID: 'ID', lastname: 'lastname' },
      filter: { type: 2 },
      shard: null,
    });
    expect(Date.parse(String(m.endedAt))).toBeGreaterThanOrEqual(Date.parse(String(m.startedAt)));
    expect(m.svcVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(existsSync(`${file}.svc-checkpoint.json`)).toBe(false);
    expect(existsSync(`${file}.svc-partial`)).toBe(false);
  });

  it('leaves an existing target untouched when the run fails, keeps the checkpoint, and --resume completes it byte-identically', async () => {
    const dir = tempDir();
    const reference = join(dir, 'ref.ndjson');
    expect((await exportTo(reference, '--format', 'ndjson', '--page-size', '200')).code).toBe(0);
    const file = join(dir, 'nightly.ndjson');
    writeFileSync(file, 'yesterday\n');
    const s = sandbox();
    const { onRequest } = await import('../export/support.js');
    const stop = onRequest(s, '/api/v1/accounts', (n) => {
      if (n === 6) s.sandbox.hooks.failNext({ path: '/api/v1/accounts', fault: { status: 500, body: 'boom' }, times: 1000 });
    });
    const failed = await exportTo(file, '--format', 'ndjson', '--page-size', '200');
    stop();
    s.sandbox.hooks.reset();
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/failed with 500.*--resume/);
    expect(readFileSync(file, 'utf8')).toBe('yesterday\n');
    const ck = JSON.parse(readFileSync(`${file}.svc-checkpoint.json`, 'utf8')) as { rows: number };
    // Six pages were answered (a fault set at the sixth request hits the seventh).
    expect(ck.rows).toBe(1200);
    const resumed = await exportTo(file, '--format', 'ndjson', '--page-size', '200', '--resume');
    expect(resumed).toMatchObject({ code: 0, stderr: '' });
    expect(sha256File(file)).toBe(sha256File(reference));
    expect(existsSync(`${file}.svc-checkpoint.json`)).toBe(false);
  });

  it('refuses a checkpoint made by a different request', async () => {
    const file = join(tempDir(), 'x.csv');
    const s = sandbox();
    const { onRequest } = await import('../export/support.js');
    // The first page is answered (a fault set at a request hits the next one), so the checkpoint holds rows.
    const stop = onRequest(s, '/api/v1/accounts', (n) => {
      if (n === 1) s.sandbox.hooks.failNext({ path: '/api/v1/accounts', fault: { status: 500 }, times: 1000 });
    });
    const failed = await exportTo(file, '--format', 'csv', '--filter', 'type = 1', '--page-size', '5', '--concurrency', '1');
    stop();
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/5 rows kept in .*x\.csv\.svc-partial/);
    s.sandbox.hooks.reset();
    const other = await exportTo(file, '--format', 'csv', '--filter', 'type = 2', '--resume');
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/checkpoint .*x\.csv\.svc-checkpoint\.json belongs to a different export/);
    expect(existsSync(file)).toBe(false);
  });

  it.each([
    ['refused token', 4],
    ['service failing', 1],
  ])('a run that fails before its first record (%s) leaves nothing beside the target and says so', async (what, code) => {
    const dir = tempDir();
    const file = join(dir, 'nightly.csv');
    writeFileSync(file, 'yesterday\n');
    const s = sandbox();
    if (what === 'service failing') s.sandbox.hooks.failNext({ path: '/api/v1/accounts', fault: { status: 500, body: 'boom' }, times: 1000 });
    const argv = ['accounts', 'export', '--output-file', file, '--format', 'csv'];
    const r = what === 'refused token' ? await run(argv, { env: { SVC_TOKEN: 'not-a-token' } }) : await run(argv);
    s.sandbox.hooks.reset();
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(new RegExp(`; no record was written, ${file.replace(/[.]/g, '\\.')} is untouched\n$`));
    expect(r.stderr).not.toMatch(/--resume/);
    expect(r.stderr.trimEnd().split('\n').slice(0, -1).filter((l) => !/asking again with \d+ records a page/.test(l))).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe('yesterday\n');
    expect(readdirSync(dir)).toEqual(['nightly.csv']);
    // Run again, with or without --resume: a fresh export.
    const again = await exportTo(file, '--format', 'csv', '--resume');
    expect(again).toMatchObject({ code: 0, stderr: '' });
    expect(readdirSync(dir)).toEqual(['nightly.csv']);
  });

  it('asks a failing page again with half the records each time, never skipping it', async () => {
    const s = sandbox();
    s.sandbox.hooks.failNext({ path: '/api/v1/accounts', fault: { status: 500, body: 'page too large' }, times: 3 });
    const r = await run(['accounts', 'export', '--format', 'ndjson', '--page-size', '800']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/asking again with 100 records a page/);
    // Faulted requests are not recorded: 800, 400 and 200 failed; 100 worked, and after four pages it grows again.
    const limits = s.sandbox.hooks.requests.map((q) => (q.body as { limit?: number }).limit);
    expect(limits.slice(0, 6)).toEqual([100, 100, 100, 100, 200, 200]);
    expect(r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual(all);
  });
});

describe('svc <family> export --server-side', () => {
  it("streams the service's own ';' csv to the file, with a manifest", async () => {
    const file = join(tempDir(), 'server.csv');
    const r = await exportTo(file, '--server-side', '--format', 'csv', '--fields', 'ID,lastname,description', '--manifest');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const rows = parseCsv(readFileSync(file, 'utf8'), ';');
    expect(rows[0]).toEqual(['ID', 'lastname', 'description']);
    expect(rows.slice(1).map((row) => row[1])).toEqual(all.map((a) => a.lastname));
    const m = JSON.parse(readFileSync(`${file}.manifest.json`, 'utf8')) as Record<string, unknown>;
    expect(m).toMatchObject({ rows: all.length, sha256: sha256File(file), serverSide: true });
  });

  it('is refused for a non-admin (exit 4), the target untouched', async () => {
    const file = join(tempDir(), 'server.csv');
    writeFileSync(file, 'old\n');
    const r = await run(['accounts', 'export', '--server-side', '--format', 'csv', '--output-file', file], { user: 'reader' });
    expect(r.code).toBe(4);
    expect(readFileSync(file, 'utf8')).toBe('old\n');
    expect(existsSync(`${file}.svc-partial`)).toBe(false);
  });
});

describe('export --output FILE', () => {
  it('takes the file from the global --output when it is a path, as the issue spells it', async () => {
    const file = join(tempDir(), 'users.csv');
    const r = await run(['users', 'export', '--fields', 'name', '--output', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('name\ndemo\nreader\nfield\nsecure\nstaff\n');
    const twice = await run(['users', 'export', '--output', file, '--output-file', file]);
    expect(twice.code).toBe(2);
    const notAFormat = await run(['users', 'query', '--output', 'users.csv']);
    expect(notAFormat).toMatchObject({ code: 2, stdout: '' });
    expect(notAFormat.stderr).toBe("svc: unknown output format 'users.csv' (choose table, json, ndjson, csv, tsv; for export, a file of that name: --output-file users.csv)\n");
  });
});
