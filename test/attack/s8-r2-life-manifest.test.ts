/**
 * s8-r2-life: a second attack on `export --manifest` after commit d889ee4
 * (src/export/manifest.ts: stage, drop the old one, rename the export, place
 * the manifest). README "Exports for cron": "so no manifest ever describes a
 * file that is not there".
 *
 * - HELD (seeded chaos): the built svc killed (SIGKILL) at seeded random
 *   moments of `export --manifest` (CSV and Parquet, --concurrency 1 and 4),
 *   half of them on the file-system events of the last steps (the staged
 *   manifest, the rename): a manifest beside the file always describes that
 *   very file (sha256, bytes, rows); the same command again converges to a
 *   clean export and its manifest, nothing left beside them.
 * - FINDING: SIGKILL between the export's rename and the removal of its
 *   checkpoint (caught there with SIGSTOP on the rename's file-system event):
 *   the same command with --resume is exit 2 "the partial file … is missing
 *   … run without --resume", on every run after (the chaos runs hit it too:
 *   their tally lists resumeRefused; they then run without --resume);
 * - FINDING: an export WITHOUT --manifest replaces the file and leaves the
 *   manifest of the previous one beside it, with the old sha256 and rows.
 * - FINDING: --output through a symbolic link: the file the link points to
 *   is replaced, but its own manifest (FILE.manifest.json of an earlier
 *   export to that file) stays, describing the previous content.
 * - HELD: a manifest path that is a symlink to elsewhere (never written
 *   through); an existing manifest that is a directory (exit 1, one line
 *   saying the file is in place and its manifest is not); --output in a
 *   directory nothing can be written to.
 *
 * Tests whose names start with "HELD:" are claims that held when written.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRandom } from '../../src/util/random.js';
import { sandboxCli, tempConfigDir } from '../helpers/cli.js';
import { seedTrickyAccounts, tempDir } from '../export/support.js';

const SEED = process.env.SVC_MANIFEST_SEED ? Number(process.env.SVC_MANIFEST_SEED) : Math.floor(Math.random() * 2 ** 31);
const REPLAY = `replay: SVC_MANIFEST_SEED=${SEED} npx vitest run test/attack/s8-r2-life-manifest.test.ts`;
const TRIALS = Number(process.env.SVC_MANIFEST_TRIALS ?? 8);
const ACCOUNTS = 3000;

const { sandbox, run } = sandboxCli();

interface Manifest {
  file: string;
  rows: number;
  bytes: number;
  sha256: string;
  filter: unknown;
}

const sha = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');
const manifestOf = (file: string): Manifest => JSON.parse(readFileSync(`${file}.manifest.json`, 'utf8')) as Manifest;

/** The clean export of each format (bytes and rows), made once. */
const clean = new Map<string, { sha256: string; bytes: number; rows: number }>();
/** How long a clean spawned export takes, per format and concurrency (ms). */
const took = new Map<string, number>();

beforeAll(async () => {
  seedTrickyAccounts(sandbox(), ACCOUNTS);
  for (const format of ['csv', 'parquet']) {
    const file = join(tempDir(), `clean.${format}`);
    const r = await run(['accounts', 'export', '--format', format, '--output', file, '--manifest']);
    expect(r.code, r.stderr).toBe(0);
    const m = manifestOf(file);
    expect(m.sha256).toBe(sha(file));
    clean.set(format, { sha256: m.sha256, bytes: m.bytes, rows: m.rows });
  }
  console.log(`s8-r2-life-manifest: seed ${SEED} (${REPLAY})`);
}, 60_000);

/** The built svc, spawned; `kill` decides when (if ever) it gets SIGKILL. */
function spawnExport(args: string[], kill?: (child: ReturnType<typeof spawn>) => () => void): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; ms: number }> {
  const s = sandbox();
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1', SVC_CHECKPOINT_EVERY: '25ms' };
  const t0 = Date.now();
  const child = spawn(process.execPath, ['bin/svc.js', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const stop = kill?.(child) ?? (() => undefined);
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(watchdog);
      stop();
      resolve({ code, signal, stderr, ms: Date.now() - t0 });
    }),
  );
}

/** What must hold whenever svc is not running: a manifest beside the file describes that very file. */
function checkManifest(file: string, why: string): void {
  const path = `${file}.manifest.json`;
  if (!existsSync(path)) return;
  expect(existsSync(file), `${why}: a manifest describes ${file}, which is not there`).toBe(true);
  const m = manifestOf(file);
  const actual = sha(file);
  expect(m.sha256, `${why}: the manifest's sha256 is not the file's`).toBe(actual);
  expect(m.bytes, `${why}: the manifest's bytes are not the file's`).toBe(statSync(file).size);
}

describe('SIGKILL at seeded moments of export --manifest', () => {
  const tally = { kills: 0, onEvent: 0, killedAfterRename: 0, noManifest: 0, oldKept: 0, resumeRefused: [] as string[] };

  for (const format of ['csv', 'parquet'] as const) {
    for (const concurrency of [1, 4] as const) {
      it(`HELD: ${format}, --concurrency ${concurrency}: a manifest beside the file always describes it; the same command again converges`, async () => {
        const random = createRandom(SEED + (format === 'csv' ? 0 : 100) + concurrency);
        const dir = tempDir();
        const file = join(dir, `accounts.${format}`);
        const args = ['accounts', 'export', '--format', format, '--output', file, '--manifest', '--concurrency', String(concurrency), '--page-size', '200', '--quiet'];
        const key = `${format}/${concurrency}`;
        if (!took.has(key)) {
          // A clean run, to know how long one takes (the kills are spread over that).
          const r = await spawnExport(args);
          expect(r.code, r.stderr).toBe(0);
          took.set(key, r.ms);
        }
        const cleanRun = clean.get(format)!;
        for (let t = 0; t < TRIALS; t++) {
          const why = `${key} trial ${t} (${REPLAY})`;
          // The previous export (another filter) and its manifest.
          const prev = await run(['accounts', 'export', '--format', format, '--output', file, '--manifest', '--filter', `ID < ${50 + t}`]);
          expect(prev.code, prev.stderr).toBe(0);
          const prevSha = sha(file);
          const onEvent = random.chance(0.5);
          const delay = onEvent ? random.int(0, 3) : Math.round(took.get(key)! * (0.3 + random.next()));
          const r = await spawnExport(args, (child) => {
            if (!onEvent) {
              const timer = setTimeout(() => child.kill('SIGKILL'), delay);
              return () => clearTimeout(timer);
            }
            // The last steps: the staged manifest appearing, the old one going, the export's rename, the manifest's.
            const watcher = watch(dir, (_event, name) => {
              if (!name || !(name.endsWith('.manifest.json.tmp') || name === `accounts.${format}` || name.endsWith('.manifest.json'))) return;
              watcher.close();
              if (delay === 0) child.kill('SIGKILL');
              else setTimeout(() => child.kill('SIGKILL'), delay);
            });
            return () => watcher.close();
          });
          if (r.signal === 'SIGKILL') {
            tally.kills++;
            if (onEvent) tally.onEvent++;
          } else expect(r.code, `${why}: ${r.stderr}`).toBe(0);
          checkManifest(file, why);
          const now = sha(file);
          if (now !== prevSha) {
            expect(now, `${why}: the file is neither the previous one nor a whole export`).toBe(cleanRun.sha256);
            if (r.signal === 'SIGKILL') tally.killedAfterRename++;
          }
          if (!existsSync(`${file}.manifest.json`)) tally.noManifest++;
          else if (manifestOf(file).sha256 === prevSha) tally.oldKept++;
          // The same command again (as cron would), with --resume: it finishes, file and manifest agree, nothing left beside them.
          const again = await spawnExport([...args, '--resume']);
          if (again.code !== 0) tally.resumeRefused.push(`${again.code}: ${again.stderr.trim()}`);
          const fresh = again.code === 0 ? again : await spawnExport(args);
          expect(fresh.code, `${why}: ${again.stderr} / ${fresh.stderr}`).toBe(0);
          expect(sha(file), why).toBe(cleanRun.sha256);
          expect(manifestOf(file), why).toMatchObject({ sha256: cleanRun.sha256, bytes: cleanRun.bytes, rows: cleanRun.rows, filter: null });
          expect(readdirSync(dir).filter((f) => f !== `accounts.${format}` && f !== `accounts.${format}.manifest.json`), `${why}: left beside the file`).toEqual([]);
        }
        console.log(`s8-r2-life-manifest ${key}: seed ${SEED}; ${JSON.stringify(tally)}`);
      }, 60_000);
    }
  }
});

describe('SIGKILL in the moment between the rename and the removal of the checkpoint', () => {
  it('the same command with --resume (as a cron job runs it) finishes: exit 0, file and manifest agree; not exit 2 "the partial file is missing … run without --resume" on every run after', async () => {
    const dir = tempDir();
    const file = join(dir, 'accounts.csv');
    const args = ['accounts', 'export', '--format', 'csv', '--output', file, '--manifest', '--quiet'];
    let hit = false;
    for (let attempt = 0; attempt < 30 && !hit; attempt++) {
      const prev = await run(['accounts', 'export', '--format', 'csv', '--output', file, '--manifest', '--filter', 'ID < 20']);
      expect(prev.code, prev.stderr).toBe(0);
      // Stopped (SIGSTOP) the moment the export is renamed into place, then killed: as a power cut or OOM kill there.
      const r = await spawnExport(args, (child) => {
        const watcher = watch(dir, (_event, name) => {
          if (name !== 'accounts.csv' || existsSync(`${file}.svc-partial`)) return;
          child.kill('SIGSTOP');
          watcher.close();
          child.kill('SIGKILL');
        });
        return () => watcher.close();
      });
      hit = r.signal === 'SIGKILL' && existsSync(`${file}.svc-checkpoint.json`) && !existsSync(`${file}.svc-partial`) && sha(file) === clean.get('csv')!.sha256;
      if (!hit) await spawnExport(args);
    }
    expect(hit, 'the window was never hit in 30 attempts (try again)').toBe(true);
    checkManifest(file, 'killed after the rename');
    const again = await spawnExport([...args, '--resume']);
    const third = await spawnExport([...args, '--resume']);
    expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 0, stderr: '' });
    expect(third.code, third.stderr).toBe(0);
    checkManifest(file, 'after --resume');
    expect(existsSync(`${file}.manifest.json`)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['accounts.csv', 'accounts.csv.manifest.json']);
  }, 60_000);
});

describe('a manifest beside a file that another export replaced', () => {
  it('an export without --manifest replaces the file: the old manifest (old sha256, old rows) does not stay beside the new file', async () => {
    const dir = tempDir();
    const file = join(dir, 'accounts.csv');
    const first = await spawnExport(['accounts', 'export', '--format', 'csv', '--output', file, '--manifest', '--filter', 'ID < 20']);
    expect(first.code, first.stderr).toBe(0);
    const second = await spawnExport(['accounts', 'export', '--format', 'csv', '--output', file]);
    expect(second.code, second.stderr).toBe(0);
    // A reader that checks the file against its manifest (the manifest's purpose) now finds a mismatch.
    checkManifest(file, 'after an export without --manifest');
  });

  it('--output through a symbolic link: the manifest of the file it points to does not keep describing the previous content', async () => {
    const dir = tempDir();
    const real = join(dir, 'accounts.csv');
    const link = join(dir, 'latest.csv');
    symlinkSync(real, link);
    const first = await spawnExport(['accounts', 'export', '--format', 'csv', '--output', real, '--manifest', '--filter', 'ID < 20']);
    expect(first.code, first.stderr).toBe(0);
    const second = await spawnExport(['accounts', 'export', '--format', 'csv', '--output', link, '--manifest']);
    expect(second.code, second.stderr).toBe(0);
    checkManifest(link, 'the manifest beside the link');
    checkManifest(real, 'the manifest beside the file the link points to');
  });
});

describe('where the manifest goes', () => {
  it('HELD: FILE.manifest.json that is a symbolic link to a file elsewhere: the link is replaced by the manifest, the file it pointed to untouched', async () => {
    const dir = tempDir();
    const elsewhere = join(tempDir(), 'precious.json');
    writeFileSync(elsewhere, '{"precious":true}\n');
    const file = join(dir, 'accounts.csv');
    symlinkSync(elsewhere, `${file}.manifest.json`);
    const r = await run(['accounts', 'export', '--format', 'csv', '--output', file, '--manifest']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(elsewhere, 'utf8')).toBe('{"precious":true}\n');
    checkManifest(file, 'manifest over a link');
    expect(manifestOf(file).sha256).toBe(clean.get('csv')!.sha256);
  });

  it('HELD: FILE.manifest.json that is a directory: exit 1 in one line saying the file is in place and its manifest is not; the file is the new export', async () => {
    const dir = tempDir();
    const file = join(dir, 'accounts.csv');
    mkdirSync(`${file}.manifest.json`);
    const r = await run(['accounts', 'export', '--format', 'csv', '--output', file, '--manifest']);
    expect(r.code).toBe(1);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`${file} is in place`);
    expect(r.stderr).not.toContain('unexpected error');
    expect(sha(file)).toBe(clean.get('csv')!.sha256);
    expect(readdirSync(dir).sort()).toEqual(['accounts.csv', 'accounts.csv.manifest.json']);
  });

  it('HELD: --output in a directory nothing can be written to (/proc/sys/kernel): one line, no record file or manifest claimed', async () => {
    const r = await run(['accounts', 'export', '--format', 'csv', '--output', '/proc/sys/kernel/s8r2.csv', '--manifest']);
    expect([1, 2]).toContain(r.code);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('/proc/sys/kernel/s8r2.csv');
    expect(r.stderr).not.toContain('unexpected error');
    expect(r.stderr).not.toContain('is in place');
  });
});
