/**
 * s9 round 2: a cursor file of the previous svc (no "instance": f3d691c takes
 * it once and stamps it) resumed by the built svc's running watch, against a
 * sandbox failing 15% of requests at random, and stopped by SIGINT, SIGTERM or
 * SIGKILL at a seeded query (counted by the sandbox). Then a `--once` run:
 * every change is seen with its last values; after a graceful stop (exit 130)
 * nothing is written twice and the file names the instance; after SIGKILL the
 * file is the old one or a stamped one, never damaged, and the next run stamps it.
 *
 * These held (passing tests). Replay: SVC_S9R2_WATCH_SEED=<n> npx vitest run test/attack/s9-r2-state-watch-interrupt.test.ts
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRandom } from '../../src/util/random.js';
import { sandboxCli } from '../helpers/cli.js';
import { createAccount, onQuery, readCursor, spawnSvc, tempDir, updateAccount } from '../watch/support.js';

const SEED = process.env.SVC_S9R2_WATCH_SEED ? Number(process.env.SVC_S9R2_WATCH_SEED) : Math.floor(Math.random() * 2 ** 31);
const REPLAY = `replay: SVC_S9R2_WATCH_SEED=${SEED} npx vitest run test/attack/s9-r2-state-watch-interrupt.test.ts`;

const { sandbox, run } = sandboxCli();
afterEach(() => {
  sandbox().sandbox.hooks.setFaultRate(0);
  sandbox().sandbox.hooks.onArrival = undefined;
});

interface Line {
  op: string;
  record: { ID: number; lastname?: string };
}

describe(`an old cursor file resumed by a running watch, stopped at a seeded query, faults on (seed ${SEED})`, () => {
  (['SIGINT', 'SIGTERM', 'SIGKILL'] as const).forEach((signal, index) => {
    it(`HELD: ${signal} (seed ${SEED})`, async () => {
      const s = sandbox();
      const random = createRandom(SEED + 31 * index);
      const prefix = `S9R2WI${index}x`;
      const cursor = join(tempDir(), 'accounts.cursor');
      const args = ['accounts', 'watch', '--filter', `lastname ~ "^${prefix}"`, '--fields', 'ID,lastname', '--page-size', '3', '--cursor-file', cursor];
      expect((await run([...args, '--since', 'now', '--once'])).code).toBe(0);
      // As the previous svc wrote it.
      const old = readCursor(cursor);
      delete old.instance;
      writeFileSync(cursor, `${JSON.stringify(old)}\n`);

      const ids: number[] = [];
      for (let i = 0; i < 8; i++) ids.push(await createAccount(s, `${prefix}${i}`));
      const last = new Map(ids.map((id, i) => [id, `${prefix}${i}`]));

      s.sandbox.hooks.setFaultRate(0.15, SEED + index);
      const at = random.int(1, 6);
      const w = spawnSvc(s, [...args, '--interval', '100ms']);
      const stopCounting = onQuery(s, (n) => {
        if (n === at) w.child.kill(signal);
      });
      const end = await w.exited;
      stopCounting();
      s.sandbox.hooks.setFaultRate(0);
      const why = `${REPLAY}; ${signal} at query ${at}: exit ${end.code ?? end.signal}: ${JSON.stringify(end.stderr)}`;
      const firstLines = w.lines().map((l) => JSON.parse(l) as Line);

      // The file is the old one or a stamped one: never damaged.
      const after = readCursor(cursor);
      expect([undefined, s.instanceUrl], why).toContain(after.instance);
      if (signal !== 'SIGKILL') {
        expect(end.code, why).toBe(130);
        if (firstLines.length > 0) expect(after.instance, why).toBe(s.instanceUrl);
      }

      // More changes, then one poll.
      const changed = ids[random.int(0, ids.length - 1)] as number;
      await updateAccount(s, changed, { lastname: `${prefix}changed` });
      last.set(changed, `${prefix}changed`);
      const again = await run([...args, '--once']);
      expect(again.code, `${why}\n${again.stderr}`).toBe(0);
      const secondLines = again.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line);
      const all = [...firstLines, ...secondLines];
      const what = `${why}\nfirst run: ${JSON.stringify(firstLines)}\nsecond run: ${JSON.stringify(secondLines)}`;
      // Nothing missed: each record's last values were written.
      for (const [id, lastname] of last) {
        const seen = all.filter((l) => l.op === 'upsert' && l.record.ID === id).map((l) => l.record.lastname);
        expect(seen.at(-1), `${what}\nrecord ${id}`).toBe(lastname);
      }
      // After a graceful stop nothing comes twice (the changed record's two versions are two changes).
      if (signal !== 'SIGKILL') {
        const keys = all.map((l) => `${l.record.ID}:${l.record.lastname}`);
        expect(keys.length, what).toBe(new Set(keys).size);
      }
      expect(readCursor(cursor).instance, what).toBe(s.instanceUrl);
    }, 60_000);
  });
});
