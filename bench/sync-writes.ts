// What an incremental sync's writing costs SQLite, without a service: a copy
// of --accounts N accounts (every field, svc's own store: 2 KB pages, WAL,
// synchronous NORMAL, the ID index) is made once and written to disk; then
// each round, from a fresh copy of it (also on disk first, as a cron run finds
// its file), every 100th record is changed, a transaction of 1,000 records at
// a time as a later `svc sync` writes them, and the file closed:
//   svc              - through svc's store (src/sync/sqlite-store.ts), open to close;
//   same, no fsync   - the same statements on a connection with synchronous = OFF, a
//                      diagnostic only (svc never runs so: a power cut could lose the copy):
//                      the difference is the disk taking the pages that durability needs
//                      written, each changed row's 2 KB page once to the WAL and once to the file.
// Medians of --rounds, the variants interleaved, and the ratio of each to svc's.
//
//   npx tsx bench/sync-writes.ts                          # 1,000,000 accounts, 5 rounds
//   npx tsx bench/sync-writes.ts --accounts 100000 --rounds 5
import Database from 'better-sqlite3';
import { closeSync, copyFileSync, existsSync, fsyncSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { findFamily } from '../src/catalogue/index.js';
import type { Row } from '../src/output/view.js';
import { planColumns, rowCells, ident, type ColumnPlan } from '../src/sync/columns.js';
import { openSqlite } from '../src/sync/sqlite-store.js';
import type { SyncState } from '../src/sync/store.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const accounts = option('--accounts', 1_000_000);
const rounds = option('--rounds', 5);
const EVERY = 100;
const PAGE = 1000;

const family = findFamily('accounts');
if (!family) throw new Error('no accounts family in the catalogue');
const columns = planColumns(family, family.fields.map((f) => ({ name: f.name, path: f.name })), false);
const temp = mkdtempSync(join(tmpdir(), 'svc-bench-sync-writes-'));

/** A record of about the size the sandbox's seeded accounts have (text of a few to 20 characters). */
function record(id: number, tag: string): Row {
  const row: Row = {};
  for (const c of columns) {
    if (c.name === 'ID') row[c.name] = id;
    else if (c.kind === 'text') row[c.name] = c.name === 'description' ? tag : `${c.name.slice(0, 4)} ${id % 9973} Müller`;
    else if (c.kind === 'json' || c.kind === 'any') row[c.name] = null;
    else if (c.kind === 'double' || c.kind === 'money') row[c.name] = (id % 1000) / 8;
    else if (c.kind === 'bool') row[c.name] = id % 2;
    else if (c.kind === 'smallint') row[c.name] = id % 7;
    else row[c.name] = 1_700_000_000 + (id % 100_000);
  }
  return row;
}

function durable(file: string): void {
  for (const f of [file, `${file}-wal`]) {
    if (!existsSync(f)) continue;
    const fd = openSync(f, 'r+');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

const state = (): SyncState => ({
  family: 'accounts',
  filter: '{}',
  fields: '',
  keepDeleted: false,
  columns: JSON.stringify(columns),
  svcVersion: 'bench',
  cursor: 0,
  phase: 'ready',
  afterId: 0,
  lastReconcile: null,
  runs: 1,
  runsSinceReconcile: 0,
  updatedAt: 0,
});

const base = join(temp, 'base.sqlite');
{
  const t0 = performance.now();
  const store = await openSqlite(base);
  await store.create(state(), columns, false);
  for (let id = 1; id <= accounts; id += 5000) {
    const rows: Row[] = [];
    for (let i = id; i < Math.min(id + 5000, accounts + 1); i++) rows.push(record(i, ''));
    await store.upsert('accounts', columns, rows, state(), true);
  }
  await store.indexIds('accounts', false);
  await store.close();
  durable(base);
  console.log(`a copy of ${accounts.toLocaleString('en-US')} accounts made in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

/** The pages of changed records, PAGE a transaction. */
function pagesOf(round: number): Row[][] {
  const out: Row[][] = [];
  for (let id = 1, page: Row[] = []; id <= accounts; id += EVERY) {
    page.push(record(id, `changed in round ${round}`));
    if (page.length === PAGE || id + EVERY > accounts) {
      out.push(page);
      page = [];
    }
  }
  return out;
}

function freshCopy(): string {
  const copy = join(temp, 'copy.sqlite');
  for (const ext of ['', '-wal', '-shm']) rmSync(copy + ext, { force: true });
  copyFileSync(base, copy);
  durable(copy);
  return copy;
}

async function viaSvc(pages: Row[][]): Promise<number> {
  const copy = freshCopy();
  const t0 = performance.now();
  const store = await openSqlite(copy);
  let updated = 0;
  for (const rows of pages) updated += (await store.upsert('accounts', columns, rows, undefined, false)).updated;
  await store.saveState(state());
  await store.close();
  const ms = performance.now() - t0;
  if (updated !== pages.reduce((n, p) => n + p.length, 0)) throw new Error(`svc's store updated ${updated} records`);
  return ms;
}

/** The statements svc's store runs for a later run's page (an UPDATE when a value differs, else an INSERT that skips a held ID). */
function viaRaw(pages: Row[][], synchronous: 'NORMAL' | 'OFF'): number {
  const copy = freshCopy();
  const t0 = performance.now();
  const db = new Database(copy);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  const names = columns.map((c: ColumnPlan) => ident(c.name));
  const rest = names.slice(1);
  const update = db.prepare(`UPDATE "accounts" SET ${rest.map((n) => `${n} = ?`).join(', ')} WHERE ID = ? AND (${rest.map((n) => `${n} IS NOT ?`).join(' OR ')})`);
  const insert = db.prepare(`INSERT INTO "accounts" (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')}) ON CONFLICT(ID) DO NOTHING`);
  let updated = 0;
  for (const rows of pages) {
    db.transaction(() => {
      for (const row of rows) {
        const cells = rowCells(columns, row);
        const values = cells.slice(1);
        if (update.run(...values, cells[0], ...values).changes > 0) updated++;
        else insert.run(...cells);
      }
    })();
  }
  db.close();
  const ms = performance.now() - t0;
  if (updated !== pages.reduce((n, p) => n + p.length, 0)) throw new Error(`the raw connection updated ${updated} records`);
  return ms;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const times = { svc: [] as number[], normal: [] as number[], off: [] as number[] };
try {
  for (let r = 0; r < rounds + 1; r++) {
    const pages = pagesOf(r);
    const order = [
      async () => void (r > 0 && times.svc.push(await viaSvc(pages))),
      async () => void (r > 0 && times.normal.push(viaRaw(pages, 'NORMAL'))),
      async () => void (r > 0 && times.off.push(viaRaw(pages, 'OFF'))),
    ];
    // Round 0 warms the caches; the order turns each round.
    for (let i = 0; i < order.length; i++) await order[(i + r) % order.length]!();
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}

const rows = Math.ceil(accounts / EVERY);
const s = median(times.svc);
console.log(`\n${rows.toLocaleString('en-US')} changed records (every ${EVERY}th of ${accounts.toLocaleString('en-US')}) written ${PAGE} a transaction, open to close, medians of ${rounds} rounds, node ${process.version}`);
for (const [label, xs] of [
  ['svc (synchronous NORMAL)', times.svc],
  ['same statements, NORMAL', times.normal],
  ['same statements, OFF (diagnostic)', times.off],
] as const) {
  const m = median(xs);
  console.log(`${label.padEnd(36)} ${m.toFixed(0).padStart(6)} ms  ${(m / s).toFixed(2)}x svc  ${((m * 1000) / rows).toFixed(1)} µs a record`);
}
