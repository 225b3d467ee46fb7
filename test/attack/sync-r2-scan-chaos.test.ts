/**
 * Later runs at --concurrency 4, --lag 0, with the service changing while
 * they read: records updated behind and ahead of the scan, created, deleted
 * and leaving the filter at seeded moments (each request that arrives moves
 * the shared clock on by up to 90 s, as a slow scan would), and a share of
 * requests failing (503, 429, dropped connections, slow answers). A run may
 * fail (exit 1); a clean run afterwards must leave the copy equal to
 * `query --all`: the cursor taken from the fetched records less the scan's
 * time must never pass a change.
 * Replay: R2_SEED=<n> npx vitest run test/attack/sync-r2-scan-chaos.test.ts
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { table } from '../../src/sandbox/schema.js';
import { createRandom, type Random } from '../../src/util/random.js';
import { sandboxCli } from '../helpers/cli.js';
import { expectedRows, insertAccounts, readCopy, tempDir } from '../sync/support.js';

const SEED = process.env.R2_SEED ? Number(process.env.R2_SEED) : Math.floor(Math.random() * 2 ** 31);
const REPLAY = `replay: R2_SEED=${SEED} npx vitest run test/attack/sync-r2-scan-chaos.test.ts`;
let clock = Date.now() + 3_600_000;
const { sandbox, run } = sandboxCli({ now: () => clock });
const FIELDS = 'ID,lastname,type,description';

describe(`later runs at --concurrency 4 while the service changes, under faults (seed ${SEED})`, () => {
  it.each(['sqlite', 'duckdb'])(`%s: a clean run afterwards leaves the copy equal to query --all (seed ${SEED})`, async (engine) => {
    const random: Random = createRandom(SEED + (engine === 'sqlite' ? 0 : 1));
    const s = sandbox();
    const db = s.sandbox.db;
    const t = table('demo', 'accounts');
    const prefix = `Chaos ${engine}`;
    const filter = `lastname ~~ '${prefix}%' and type != SUPPLIER`;
    const ids = insertAccounts(s, 300, Math.floor(clock / 1000) - 600, prefix);
    const file = join(tempDir(), `chaos.${engine}`);
    const args = ['accounts', 'sync', '--into', file, '--filter', filter, '--fields', FIELDS, '--concurrency', '4', '--page-size', '8', '--lag', '0', '-o', 'json'];
    const now = { now: () => clock, monotonic: () => clock };
    const first = await run(args, now);
    expect(first.code, first.stderr).toBe(0);
    const log: string[] = [];
    const change = (why: string): void => {
      const stamp = Math.floor(clock / 1000);
      const k = random.int(0, 4);
      const id = ids[random.int(0, ids.length - 1)]!;
      if (k <= 1) db.prepare(`UPDATE ${t} SET description = ?, lastmodified = ? WHERE ID = ?`).run(`${why} ${random.int(0, 1e6)}`, stamp, id);
      else if (k === 2) db.prepare(`UPDATE ${t} SET type = ?, lastmodified = ? WHERE ID = ?`).run(random.int(0, 3), stamp, id);
      else if (k === 3) {
        db.prepare(`DELETE FROM ${t} WHERE ID = ?`).run(id);
        ids.splice(ids.indexOf(id), 1);
      } else ids.push(...insertAccounts(s, 1, stamp, `${prefix} late`));
    };
    for (let round = 0; round < 3; round++) {
      clock += 600_000;
      for (let i = 0; i < 30; i++) change(`before ${round}`);
      s.sandbox.hooks.setFaultRate(0.04, SEED + round);
      s.sandbox.hooks.onArrival = (method, url) => {
        if (method !== 'POST' || !url.endsWith('/api/v1/accounts')) return;
        clock += random.int(0, 90_000);
        const n = random.int(0, 3);
        for (let i = 0; i < n; i++) change(`during ${round}`);
      };
      const r = await run(args, now);
      s.sandbox.hooks.onArrival = undefined;
      s.sandbox.hooks.setFaultRate(0);
      log.push(`round ${round}: exit ${r.code} ${r.stdout.replace(/\s+/g, ' ')} ${r.stderr.trim()}`);
      expect([0, 1], `${REPLAY}\n${log.join('\n')}`).toContain(r.code);
    }
    const last = await run(args, now);
    log.push(`clean: exit ${last.code} ${last.stdout.replace(/\s+/g, ' ')} ${last.stderr.trim()}`);
    expect(last.code, `${REPLAY}\n${log.join('\n')}`).toBe(0);
    const copy = await readCopy(file, 'accounts');
    const want = expectedRows(await run(['accounts', 'query', '--all', '--filter', filter, '--fields', FIELDS, '-o', 'json']), copy.columns);
    const held = new Map(copy.rows.map((r) => [r.ID, JSON.stringify(r)]));
    const wanted = new Set(want.map((r) => r.ID));
    const missing = want.filter((r) => !held.has(r.ID)).map((r) => r.ID);
    const stale = want.filter((r) => held.has(r.ID) && held.get(r.ID) !== JSON.stringify(r)).map((r) => r.ID);
    const extra = copy.rows.filter((r) => !wanted.has(r.ID)).map((r) => r.ID);
    expect({ missing, stale, extra }, `${REPLAY}\n${log.join('\n')}`).toEqual({ missing: [], stale: [], extra: [] });
  }, 30_000);
});
