/**
 * Checkpoints and --compression: a Parquet checkpoint written by an svc from
 * before --compression (no `codec` in its request, a fingerprint without
 * `compression`), resumed by this svc, and hand-edited codecs.
 *
 * The old checkpoint is made from a real one: an export with --compression
 * none stopped by a 400 on its third page, then `request.codec` removed, the
 * key recomputed from the fingerprint as the older svc computed it (the same
 * members, no `compression`: checked by recomputing today's key first), and
 * the checksum recomputed as saveCheckpoint does.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, requestKey } from '../../src/export/plan.js';
import { sandboxCli } from '../helpers/cli.js';
import { seedTrickyAccounts, tempDir } from '../export/support.js';

const { sandbox, run } = sandboxCli();

beforeAll(() => {
  seedTrickyAccounts(sandbox(), 300);
});

type Json = Record<string, unknown>;

/** Runs an export that fails (a 400, not retried) on its third page: exit 1, a checkpoint of what was written. */
async function stoppedExport(file: string, extra: string[]): Promise<Json> {
  let asked = 0;
  const hooks = sandbox().sandbox.hooks;
  hooks.onArrival = (method, url) => {
    if (method === 'POST' && url.endsWith('/api/v1/accounts') && ++asked === 3) hooks.failNext({ method: 'POST', path: '/api/v1/accounts', fault: { status: 400, body: 'no' } });
  };
  try {
    const r = await run(['accounts', 'export', '--page-size', '40', '--output', file, '--resume', ...extra], { env: { SVC_PARQUET_ROW_GROUP: '40' } });
    expect(r.code, r.stderr).toBe(1);
  } finally {
    hooks.onArrival = undefined;
  }
  const ck = JSON.parse(readFileSync(`${file}.svc-checkpoint.json`, 'utf8')) as Json;
  expect(ck.rows as number).toBeGreaterThan(0);
  return ck;
}

/** Saves `ck` as saveCheckpoint does: its canonical JSON's sha256 as `check`. */
function save(file: string, ck: Json): void {
  const { check: _old, ...rest } = ck;
  const check = createHash('sha256').update(canonicalJson(rest)).digest('hex');
  writeFileSync(`${file}.svc-checkpoint.json`, `${JSON.stringify({ ...rest, check })}\n`);
}

/** The fingerprint of `svc accounts export --format parquet --output FILE` as toExportRequest builds it, with `compression` as given. */
function keyOf(ck: Json, compression: string | undefined): string {
  const req = ck.request as Json;
  return requestKey({ family: 'accounts', format: 'parquet', csv: req.csv, filterMember: req.filterMember, compression });
}

describe('export --format parquet: a checkpoint from before --compression', () => {
  it('a checkpoint without codec (written by the previous svc) resumes with the command that made it, uncompressed (it was refused whatever the flags)', async () => {
    const dir = tempDir();
    const clean = join(dir, 'clean.parquet');
    const c = await run(['accounts', 'export', '--page-size', '40', '--compression', 'none', '--output', clean], { env: { SVC_PARQUET_ROW_GROUP: '40' } });
    expect(c.code, c.stderr).toBe(0);

    const file = join(dir, 'old.parquet');
    const ck = await stoppedExport(file, ['--compression', 'none']);
    // Today's key is rebuilt exactly from these members: the older key is the same without `compression`.
    expect(keyOf(ck, 'UNCOMPRESSED')).toBe(ck.key);
    const request = { ...(ck.request as Json) };
    delete request.codec;
    save(file, { ...ck, request, key: keyOf(ck, undefined), command: `svc accounts export --format parquet --output-file ${file}` });

    // The user runs again what they ran with the older svc.
    const r = await run(['accounts', 'export', '--page-size', '40', '--output', file, '--resume'], { env: { SVC_PARQUET_ROW_GROUP: '40' } });
    // Actual: exit 2, "belongs to a different export ('svc accounts export --format parquet --output-file F'),
    // not 'svc accounts export --format parquet --output-file F'; run that command with --resume" — the same
    // command twice, and running it again gives the same refusal: the codec-absent path is unreachable.
    expect(r.stderr).not.toMatch(/belongs to a different export \('([^']*)'\), not '\1'/);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(file).equals(readFileSync(clean)), 'the resumed file is the clean uncompressed export').toBe(true);
  });

  it('a checkpoint without codec is never finished with GZIP pages after uncompressed ones: refused, or the file is all one codec', async () => {
    const dir = tempDir();
    const file = join(dir, 'old.parquet');
    const ck = await stoppedExport(file, ['--compression', 'none']);
    const request = { ...(ck.request as Json) };
    delete request.codec;
    save(file, { ...ck, request, key: keyOf(ck, undefined) });
    for (const extra of [[], ['--compression', 'gzip'], ['--compression', 'none']]) {
      const r = await run(['accounts', 'export', '--page-size', '40', '--output', file, '--resume', ...extra], { env: { SVC_PARQUET_ROW_GROUP: '40' } });
      if (r.code === 0) {
        const bytes = readFileSync(file);
        // GZIP data starts 1f 8b: an uncompressed-file resume must hold none of it... unless it is all GZIP (impossible: the prefix is kept).
        const hasGzip = bytes.includes(Buffer.from([0x1f, 0x8b, 0x08, 0x00]));
        expect(hasGzip, `${extra.join(' ')}: a file mixing uncompressed and GZIP pages`).toBe(false);
        return;
      }
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
  });

  it.each([['ZSTD'], ['gzip'], ['SNAPPY'], [''], [null], [7], ['__proto__']])('a hand-edited codec %j (checksum recomputed) is refused in one line, exit 2, the partial file kept', async (codec) => {
    const file = join(tempDir(), 'edited.parquet');
    const ck = await stoppedExport(file, []);
    expect((ck.request as Json).codec).toBe('GZIP');
    const partial = readFileSync(`${file}.svc-partial`);
    save(file, { ...ck, request: { ...(ck.request as Json), codec } });
    const r = await run(['accounts', 'export', '--page-size', '40', '--output', file, '--resume'], { env: { SVC_PARQUET_ROW_GROUP: '40' } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/damaged or was edited/);
    expect(readFileSync(`${file}.svc-partial`).equals(partial)).toBe(true);
  });

  it('a GZIP checkpoint whose codec is edited to UNCOMPRESSED (checksum recomputed) is refused in one line (it was finished as a file mixing codecs, exit 0)', async () => {
    const dir = tempDir();
    const clean = join(dir, 'clean.parquet');
    expect((await run(['accounts', 'export', '--page-size', '40', '--output', clean], { env: { SVC_PARQUET_ROW_GROUP: '40' } })).code).toBe(0);
    const file = join(dir, 'flip.parquet');
    const ck = await stoppedExport(file, []);
    save(file, { ...ck, request: { ...(ck.request as Json), codec: 'UNCOMPRESSED' } });
    const r = await run(['accounts', 'export', '--page-size', '40', '--output', file, '--resume'], { env: { SVC_PARQUET_ROW_GROUP: '40' } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/holds uncompressed Parquet pages, and this export writes GZIP-compressed ones; run without --resume/);
    // Started again, the export is the clean one.
    const again = await run(['accounts', 'export', '--page-size', '40', '--output', file], { env: { SVC_PARQUET_ROW_GROUP: '40' } });
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(file).equals(readFileSync(clean))).toBe(true);
  });
});
