/**
 * Attack round on `import --resume`: the results file as a `kill -9` leaves it,
 * its last line torn mid-way, must still resume to every row once, with a
 * results file of whole lines, one per row, agreeing with the service.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { countByKey, rowsFile, tempDir } from '../commands/records/import-support.js';

const { sandbox, run } = sandboxCli();

describe('accounts import --resume after a torn results line', () => {
  it.each([1, 4])('resumes to every row exactly once, whole lines only (concurrency %i)', async (concurrency) => {
    const s = sandbox();
    const prefix = `TORN${concurrency}-`;
    const dir = tempDir();
    const rows = Array.from({ length: 12 }, (_, i) => JSON.stringify({ lastname: `${prefix}${i}`, customernum: `${prefix}${i}`, currency: 'EUR' }));
    const file = rowsFile('rows.ndjson', `${rows.join('\n')}\n`, dir);
    const results = join(dir, 'results.ndjson');
    const args = ['accounts', 'import', '--from', file, '--key', 'customernum', '--results', results, '--concurrency', String(concurrency)];
    s.sandbox.hooks.failNext({ method: 'PUT', fault: { status: 400, body: '{"error":"refused by the test"}' }, times: 2 });
    const first = await run(args);
    expect(first.code, first.stderr).toBe(1);
    expect(existsSync(`${results}.svc-state.json`)).toBe(true);
    // What a kill -9 during a write could leave: the start of a line, no line end.
    appendFileSync(results, '{"line":3,"action":"cre');
    const second = await run([...args, '--resume']);
    expect(second.code, second.stderr).toBe(0);
    const lines = readFileSync(results, 'utf8').split('\n').filter((l) => l !== '');
    const parsed = lines.map((l) => JSON.parse(l) as { line: number; action: string });
    expect(parsed.map((l) => l.line).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect([...countByKey(s, prefix).values()]).toEqual(Array.from({ length: 12 }, () => 1));
    expect(existsSync(`${results}.svc-state.json`)).toBe(false);
  });
});
