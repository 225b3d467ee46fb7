/**
 * Shared by the watch r5 attack tests: a family of accounts under a prefix
 * that seeded changes hit at any moment (updates, records leaving the filter
 * and coming back, deletions, creations), written straight into the sandbox's
 * database with the test's clock as their stamp.
 */
import type { Random } from '../../src/util/random.js';
import { table } from '../../src/sandbox/schema.js';
import type { TestSandbox } from '../helpers/sandbox.js';

/** A record as the r5 feeds carry it (fields ID, lastname, firstname, lastmodified). */
export interface Rec {
  ID: number;
  lastname: string;
  firstname: string | null;
  lastmodified: number;
}

/**
 * `initial` accounts named `${p}0…`; `mutate()` makes one seeded change and names it. A deletion happens only
 * while more than `keep` records are there, and never when `deletes` is false (a run without ID comparisons never
 * reports one).
 */
export function changingFamily(s: TestSandbox, p: string, random: Random, stamp: () => number, opts: { initial: number; keep: number; deletes: boolean }): { ids(): number[]; mutate(): string } {
  const t = table('demo', 'accounts');
  const db = s.sandbox.db;
  const insert = (name: string): void => void db.prepare(`INSERT INTO ${t} (lastname, currency, firstname, creationdate, lastmodified) VALUES (?, 'EUR', 'Berlin', ?, ?)`).run(name, stamp(), stamp());
  const ids = (): number[] => (db.prepare(`SELECT ID FROM ${t} WHERE lastname LIKE ? OR lastname LIKE ? ORDER BY ID`).all(`${p}%`, `X${p}%`) as { ID: number }[]).map((r) => r.ID);
  for (let i = 0; i < opts.initial; i++) insert(`${p}${i}`);
  const mutate = (): string => {
    const all = ids();
    const id = random.pick(all);
    const k = random.int(0, 9);
    if (k < 5) {
      db.prepare(`UPDATE ${t} SET firstname = ?, lastmodified = ? WHERE ID = ?`).run(random.pick(['Berlin', 'Kiel', 'Ulm', 'Bonn']), stamp(), id);
      return `update ${id}`;
    }
    if (k < 7) {
      // leaves the filter, or comes back
      db.prepare(`UPDATE ${t} SET lastname = CASE WHEN lastname LIKE ? THEN substr(lastname, 2) ELSE 'X' || lastname END, lastmodified = ? WHERE ID = ?`).run(`X${p}%`, stamp(), id);
      return `flip ${id}`;
    }
    if (k < 8 && all.length > opts.keep && opts.deletes) {
      db.prepare(`DELETE FROM ${t} WHERE ID = ?`).run(id);
      return `delete ${id}`;
    }
    insert(`${p}n${random.int(0, 999)}`);
    return 'create';
  };
  return { ids, mutate };
}

/** The feed replayed: the records it leaves (as JSON, by ID), the family's now, and the lines written twice in a row for one ID. */
export function replay(s: TestSandbox, p: string, feed: readonly string[]): { model: string[]; actual: string[]; repeats: string[] } {
  const model = new Map<number, string>();
  const repeats: string[] = [];
  const last = new Map<number, string>();
  for (const line of feed) {
    const l = JSON.parse(line) as { op: string; record: Rec };
    if (last.get(l.record.ID) === line) repeats.push(line);
    last.set(l.record.ID, line);
    if (l.op === 'upsert') model.set(l.record.ID, JSON.stringify(l.record));
    else model.delete(l.record.ID);
  }
  const rows = s.sandbox.db.prepare(`SELECT ID, lastname, firstname, lastmodified FROM ${table('demo', 'accounts')} WHERE lastname LIKE ? ORDER BY ID`).all(`${p}%`) as Rec[];
  return { model: [...model.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v), actual: rows.map((r) => JSON.stringify(r)), repeats };
}
