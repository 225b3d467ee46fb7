/**
 * GZIP Parquet export killed with SIGKILL at a seeded page (the built svc,
 * --concurrency 4, small row groups), then resumed with what the key does not
 * hold changed: another --concurrency, another --page-size, --compression
 * spelled ' GZIP ' rather than left out, another SVC_PARQUET_ROW_GROUP (the
 * checkpoint keeps its own). The finished file must be the clean export's
 * bytes, GZIP throughout. Seeded; the seed is in the failure message. Needs
 * `npm run build`.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRandom } from '../../src/util/random.js';
import { sandboxCli, tempConfigDir } from '../helpers/cli.js';
import { onRequest, seedTrickyAccounts, tempDir } from '../export/support.js';

const SEED = process.env.SVC_R3_SEED ? Number(process.env.SVC_R3_SEED) : Math.floor(Math.random() * 2 ** 31);
const WHY = `seed ${SEED} (replay: SVC_R3_SEED=${SEED} npx vitest run test/attack/export-r3-gzip-kill-resume.test.ts)`;
const { sandbox } = sandboxCli();

beforeAll(() => {
  seedTrickyAccounts(sandbox(), 1200);
});

async function svcBuilt(args: readonly string[], env: Record<string, string>, killAt?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const s = sandbox();
  const child = spawn(process.execPath, ['bin/svc.js', ...args], {
    env: { ...process.env, ...env, SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1', SVC_CHECKPOINT_EVERY: '1ms' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const unhook = killAt ? onRequest(s, '/api/v1/accounts', (n) => void (n === killAt && child.kill('SIGKILL'))) : () => undefined;
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 25_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) => child.on('close', (c, sig) => r([c, sig])));
  clearTimeout(watchdog);
  unhook();
  return { code, signal, stderr };
}

describe('GZIP parquet: kill -9, then --resume with other concurrency, page size and row-group env', () => {
  it('finishes with the clean bytes', async () => {
    const random = createRandom(SEED);
    const dir = tempDir();
    const clean = join(dir, 'clean.parquet');
    const base = ['accounts', 'export', '--format', 'parquet', '--quiet'];
    const c = await svcBuilt([...base, '--page-size', '50', '--output-file', clean], { SVC_PARQUET_ROW_GROUP: '30' });
    expect(c.code, c.stderr).toBe(0);
    const file = join(dir, 'killed.parquet');
    writeFileSync(file, 'previous\n');
    const killAt = random.int(5, 20);
    const first = await svcBuilt([...base, '--page-size', '50', '--concurrency', '4', '--output-file', file, '--resume'], { SVC_PARQUET_ROW_GROUP: '30' }, killAt);
    const log = `${WHY}: killed at page request ${killAt}: exit ${String(first.code ?? first.signal)} ${first.stderr}`;
    expect(readFileSync(file, 'utf8'), log).toBe('previous\n');
    const ck = JSON.parse(readFileSync(`${file}.svc-checkpoint.json`, 'utf8')) as { rows: number; bytes: number; request: { codec: string } };
    expect(ck.request.codec, log).toBe('GZIP');
    expect(ck.rows % 30, log).toBe(0);
    expect(readFileSync(`${file}.svc-partial`).subarray(0, ck.bytes).equals(readFileSync(clean).subarray(0, ck.bytes)), log).toBe(true);
    const pageSize = random.int(3, 400);
    const concurrency = random.int(1, 6);
    const again = await svcBuilt([...base, '--page-size', String(pageSize), '--concurrency', String(concurrency), '--compression', ' GZIP ', '--output-file', file, '--resume'], { SVC_PARQUET_ROW_GROUP: '7' });
    const why = `${log}; resumed at --page-size ${pageSize} --concurrency ${concurrency}: ${again.stderr}`;
    expect(again.code, why).toBe(0);
    expect(readFileSync(file).equals(readFileSync(clean)), `${why}: the finished file differs from the clean export`).toBe(true);
    expect(readdirSync(dir).filter((f) => f.includes('.svc-')), why).toEqual([]);
  }, 40_000);
});
