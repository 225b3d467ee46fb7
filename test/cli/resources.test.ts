import { describe, expect, it } from 'vitest';
import { svc } from '../helpers/cli.js';

describe('svc resources', () => {
  it('shows a table of the 64 families on a terminal, bold headers unless NO_COLOR', async () => {
    expect((await svc(['resources'], { tty: true })).stdout).toMatch(/^\u001b\[1mNAME\u001b\[22m/);
    expect((await svc(['resources', '--no-color'], { tty: true })).stdout).not.toContain('\u001b[');
    const r = await svc(['resources'], { tty: true, columns: 240, env: { NO_COLOR: '1' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+ACCESS\s+VERBS\s+READ\s+WRITE\s+PARENT$/);
    expect(lines).toHaveLength(65);
    expect(lines.find((l) => l.startsWith('accounts '))).toMatch(/^accounts\s+read-write\s+all\s+accounts\s+writable accounts\s+-$/);
    expect(lines.find((l) => l.startsWith('addresses '))).toMatch(/accounts\s+writable accounts\s+account \(accounts\)$/);
    expect(lines.find((l) => l.startsWith('groups2users '))).toMatch(/admin read-only\s+query,count,sum,export,watch,sync,get,exists\s+admin\s+-/);
    expect(lines.find((l) => l.startsWith('comments '))).toMatch(/none\s+creator only\s+record \(records\)$/);
  });

  it('gives the same as JSON data in a pipe', async () => {
    const r = await svc(['resources']);
    expect(r.code).toBe(0);
    const data = JSON.parse(r.stdout) as { name: string; access: string; verbs: string[]; read: { anyOf: string[] }; dependsOn: unknown[] }[];
    expect(data).toHaveLength(64);
    expect(data.find((f) => f.name === 'binfiles')).toMatchObject({ access: 'read-only', verbs: ['query', 'count', 'sum', 'export', 'get', 'exists'] });
    expect(data.find((f) => f.name === 'addresses')?.dependsOn).toEqual([{ field: 'account', family: 'accounts' }]);
    expect(data.find((f) => f.name === 'transactions')?.read.anyOf).toEqual(['billing', 'procurement', 'production']);
  });

  it('writes CSV and NDJSON on request', async () => {
    const csv = await svc(['resources', '-o', 'csv']);
    const lines = csv.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('name,access,verbs,read,write,parent');
    expect(lines).toContain('accounts,read-write,all,accounts,writable accounts,-');
    const nd = await svc(['-o', 'ndjson', 'resources']);
    expect(nd.stdout.trimEnd().split('\n').map((l) => (JSON.parse(l) as { name: string }).name)).toHaveLength(64);
  });

  it('keeps the family named resources reachable as a group', async () => {
    const r = await svc(['resources', 'describe', '-o', 'json']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { name: string; access: string }).access).toBe('developer read-only');
    const bad = await svc(['resources', 'descrbe']);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toBe("svc: unknown command 'descrbe' for 'svc resources'; did you mean 'describe'? (run 'svc resources --help')\n");
  });
});
