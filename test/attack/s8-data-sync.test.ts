/**
 * s8 attack on `sync --into FILE.duckdb | FILE.sqlite` with hostile values
 * (README "Keeping a copy in step": typed columns, money as DECIMAL(38,10) in
 * DuckDB "so 19.99 is exactly 19.99 and sums add up", a value that does not
 * fit its column stops the run with one line naming the record and the fix):
 * integers at their widths' edges, timestamps at 0, negative and past 2^31,
 * doubles at binary64's edges, text with NUL, a BOM, bidi controls and 70k
 * characters, '' beside null, JSON values; money finer than the scale;
 * flags the service sends outside 0/1; SQL keywords as column names; and
 * what a multi-family run says when one family fails.
 *
 * Tests whose names start with "HELD:" are claims that held when written;
 * the others are findings and fail until fixed.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { findFamily } from '../../src/catalogue/index.js';
import { isMoney } from '../../src/sync/columns.js';
import { sandboxCli } from '../helpers/cli.js';
import { forceSql } from './s8-data-support.js';
import { tempDir } from '../sync/support.js';

const { sandbox, run } = sandboxCli();
const db = () => sandbox().sandbox.db;

/** Runs SQL on the sandbox's database with its CHECK constraints off (s8-data-support.ts). */
const force = (sql: string, ...params: unknown[]): void => forceSql(db(), sql, ...params);

const TIMES = [0, -1, -86_400, 2 ** 31 - 1, 2 ** 31, 2 ** 32 + 7, 4_102_444_800, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER];
const DOUBLES = [0.1, 5e-324, 1.7976931348623157e308, -1.7976931348623157e308, 123456789.125, 1 / 3, 2 ** 53 + 2, 1e-11, -2.5];
/** Money that DECIMAL(38,10) holds exactly. */
const MONEY = [0.1, 19.99, 123456789.125, -2.5, 1e27, 0.0000000001, 0, 99999999999999.99];
const TEXTS = ['', 'nul\u0000inside', 'emoji 😀 and 日本語', 'bidi \u202e override', 'U+2028\u2028x', '\ufeffbom', 'x'.repeat(70_000), "quote \" and ' and \\"];

/** Gives the seeded records of `family` hostile values as the catalogue types its columns (see the file's comment). */
function hostile(family: string): void {
  const fam = findFamily(family);
  if (!fam) throw new Error(family);
  const table = `"demo/${family}"`;
  const ids = (db().prepare(`SELECT ID FROM ${table} ORDER BY ID LIMIT 12`).all() as { ID: number }[]).map((r) => r.ID);
  ids.forEach((id, i) => {
    for (const f of fam.fields) {
      if (f.name === 'ID' || f.ref) continue;
      let v: unknown;
      if (f.type === 'int64') v = TIMES[i % TIMES.length];
      else if (f.type === 'int32' && !f.enum) v = i % 2 ? -(2 ** 31) : 2 ** 31 - 1;
      else if (f.type === 'int16' && !f.enum) v = i % 2 ? -32768 : 32767;
      else if (f.type === 'double') v = isMoney(family, f.name) ? MONEY[i % MONEY.length] : DOUBLES[i % DOUBLES.length];
      else if (f.type === 'flag') v = i % 2;
      else if (f.type === 'string' && !f.pattern) v = f.nullable && i % 3 === 2 ? null : TEXTS[i % TEXTS.length];
      else if (['json', 'meta', 'items', 'array', 'object'].includes(f.type)) {
        v = f.nullable && i % 4 === 3 ? null : JSON.stringify(f.type === 'array' || f.type === 'items' ? [i, 'ü\u0000', { deep: [null, true, -0.5] }] : { k: `v${i}`, nested: { list: [1, 'zwei', null] }, '': 'empty key' });
      } else continue;
      force(`UPDATE ${table} SET "${f.name}" = ? WHERE ID = ?`, v, id);
    }
  });
}

/** Plain decimal text of a number, no exponent, no trailing zeros ("1e+27" → "1000000000000000000000000000", "1e-10" → "0.0000000001"). */
function decimal(v: number): string {
  const [mant, exp = '0'] = String(v).split('e');
  const neg = (mant as string).startsWith('-');
  const [int, frac = ''] = (neg ? (mant as string).slice(1) : (mant as string)).split('.');
  const digits = `${int}${frac}`;
  const point = (int as string).length + Number(exp);
  const padded = point <= 0 ? `0.${'0'.repeat(-point)}${digits}` : point >= digits.length ? digits + '0'.repeat(point - digits.length) : `${digits.slice(0, point)}.${digits.slice(point)}`;
  const clean = padded.includes('.') ? padded.replace(/0+$/, '').replace(/\.$/, '') : padded;
  const trimmed = clean.replace(/^0+(?=\d)/, '');
  return (neg && trimmed !== '0' ? '-' : '') + trimmed;
}

/** DuckDB's text of a DECIMAL without trailing zeros. */
const trimDecimal = (t: string): string => (t.includes('.') ? t.replace(/0+$/, '').replace(/\.$/, '') : t);

type Cell = string | number | null;

/** The copy's rows in ID order: text as UTF-8 hex (DuckDB's JavaScript strings drop a leading BOM), money as decimal text, flags 0/1. */
async function readBack(file: string, family: string): Promise<Record<string, Cell>[]> {
  if (file.endsWith('.sqlite')) {
    const lite = new Database(file, { readonly: true });
    try {
      const stmt = lite.prepare(`SELECT * FROM "${family}" ORDER BY ID`).raw();
      const names = stmt.columns().map((c) => c.name);
      return (stmt.all() as unknown[][]).map((r) => Object.fromEntries(names.map((n, i) => [n, typeof r[i] === 'string' ? Buffer.from(r[i] as string).toString('hex') : (r[i] as Cell)])));
    } finally {
      lite.close();
    }
  }
  const inst = await DuckDBInstance.create(file);
  const conn = await inst.connect();
  try {
    const cols = (await conn.runAndReadAll(`SELECT column_name, data_type FROM information_schema.columns WHERE table_name = '${family}' ORDER BY ordinal_position`)).getRowObjectsJS();
    const select = cols
      .map((c) => {
        const n = `"${String(c.column_name).replace(/"/g, '""')}"`;
        const t = String(c.data_type);
        if (t === 'VARCHAR') return `lower(hex(${n})) AS ${n}`;
        if (t.startsWith('DECIMAL')) return `${n}::VARCHAR AS ${n}`;
        if (t === 'BOOLEAN') return `${n}::INTEGER AS ${n}`;
        if (t === 'DOUBLE') return n;
        return `${n}::DOUBLE AS ${n}`;
      })
      .join(', ');
    const rows = (await conn.runAndReadAll(`SELECT ${select} FROM "${family}" ORDER BY ID`)).getRowObjectsJS() as Record<string, Cell>[];
    for (const c of cols) if (String(c.data_type).startsWith('DECIMAL')) for (const r of rows) if (typeof r[String(c.column_name)] === 'string') r[String(c.column_name)] = trimDecimal(r[String(c.column_name)] as string);
    return rows;
  } finally {
    conn.closeSync();
    inst.closeSync();
  }
}

/** What the copy must hold for each record `query --all -o json` printed, in readBack's terms. */
function expected(records: Record<string, unknown>[], family: string, duck: boolean): Record<string, Cell>[] {
  const fam = findFamily(family);
  return records.map((rec) =>
    Object.fromEntries(
      Object.entries(rec).map(([k, v]) => {
        const f = fam?.fields.find((x) => x.name === k);
        if (v === null || v === undefined) return [k, null];
        if (typeof v === 'string') return [k, Buffer.from(v).toString('hex')];
        if (typeof v === 'object' || f?.type === 'binfile') return [k, typeof v === 'number' ? v : Buffer.from(JSON.stringify(v)).toString('hex')];
        if (duck && f?.type === 'double' && isMoney(family, k)) return [k, decimal(v as number)];
        if (typeof v === 'boolean') return [k, v ? 1 : 0];
        return [k, v as number];
      }),
    ),
  );
}

const FAMILIES = ['items', 'transactions', 'records', 'notes', 'applications', 'stocktransactions', 'contracts', 'comments', 'prices', 'payments', 'opportunities', 'tasks'];

describe('hostile values in the typed columns', () => {
  it.each(['sqlite', 'duckdb'])('HELD: %s holds each family\'s hostile values exactly as query --all printed them (integers, timestamps, doubles, money, text, null)', async (engine) => {
    for (const f of FAMILIES) hostile(f);
    const file = join(tempDir(), `copy.${engine}`);
    const r = await run(['sync', '--into', file, ...FAMILIES, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    for (const family of FAMILIES) {
      const q = await run([family, 'query', '--all', '-o', 'json']);
      expect(q.code, q.stderr).toBe(0);
      const records = JSON.parse(q.stdout) as Record<string, unknown>[];
      const got = await readBack(file, family);
      const want = expected(records, family, engine === 'duckdb');
      expect(got.length, family).toBe(want.length);
      want.forEach((w, i) => {
        for (const [k, v] of Object.entries(w)) {
          const g = got[i]?.[k];
          // binfile references (ANY in SQLite, VARCHAR in DuckDB): as they came; DuckDB keeps the number's text.
          const same = g === v || (typeof v === 'number' && typeof g === 'string' && g === Buffer.from(String(v)).toString('hex'));
          expect(same, `${engine} ${family} ${String(records[i]?.ID)} ${k}: ${JSON.stringify(g)} vs ${JSON.stringify(v)}`).toBe(true);
        }
      });
    }
  }, 60_000);

  it('HELD: SQL keywords and characters that need quoting as column names (select, order, group, from, table, rowid, oid, a"b, it\'s, a.b): first run and an update', async () => {
    const fields = 'ID,select=lastname,a"b=firstname,order=type,group=currency,from=description,it\'s=contact,rowid=locked,a.b=creator,oid=ownergroup,table=assigneduser';
    for (const engine of ['sqlite', 'duckdb']) {
      const file = join(tempDir(), `kw.${engine}`);
      expect((await run(['accounts', 'sync', '--into', file, '--fields', fields])).code).toBe(0);
      const id = (db().prepare('SELECT min(ID) AS id FROM "demo/accounts"').get() as { id: number }).id;
      db().prepare(`UPDATE "demo/accounts" SET lastname = ?, lastmodified = (SELECT max(lastmodified) FROM "demo/accounts") + 1 WHERE ID = ?`).run(`O'Brien"; DROP TABLE accounts;-- ${engine}`, id);
      const again = await run(['accounts', 'sync', '--into', file, '-o', 'json']);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ updated: 1 });
      const rows = await readBack(file, 'accounts');
      expect(Object.keys(rows[0] ?? {})).toEqual(['ID', 'select', 'a"b', 'order', 'group', 'from', "it's", 'rowid', 'a.b', 'oid', 'table']);
      expect(rows.find((x) => x.ID === id)?.select).toBe(Buffer.from(`O'Brien"; DROP TABLE accounts;-- ${engine}`).toString('hex'));
    }
  });
});

describe('money finer than DECIMAL(38,10)', () => {
  it('DuckDB: an amount with more than 10 decimal places is kept exactly, or refused in one line naming the record; never silently rounded (so the copy\'s sum is what svc sum says)', async () => {
    const prices = [0.1, 0.2, 0.00001234567, 1e-11, 5e-11];
    const ids: number[] = [];
    for (const [i, p] of prices.entries()) {
      const r = await run(['items', 'create', `name=Micro ${i}`, `sellingprice=${p}`, '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      ids.push((JSON.parse(r.stdout) as { ID: number }).ID);
    }
    const filter = `ID >= ${ids[0]} and ID <= ${ids.at(-1)}`;
    const file = join(tempDir(), 'money.duckdb');
    const r = await run(['items', 'sync', '--into', file, '--fields', 'ID,name,sellingprice', '--filter', filter]);
    const sum = await run(['items', 'sum', 'sellingprice', '--filter', filter, '-o', 'json']);
    expect(sum.code, sum.stderr).toBe(0);
    const exact = String((JSON.parse(sum.stdout) as { sum: number | string }).sum);
    if (r.code === 1) {
      // A refusal, as for an amount past 10^28: one line naming the record and the field. (The hostile values
      // an earlier test left in items, lastmodified 2^53 among them, add a warning line of their own: not counted.)
      expect(r.stderr.trimEnd().split('\n').filter((l) => !/changed in the future/.test(l))).toHaveLength(1);
      expect(r.stderr).toMatch(new RegExp(`record ${ids[2]}: sellingprice is 0\\.00001234567|record ${ids[3]}: sellingprice is 1e-11`));
      return;
    }
    expect(r.code, r.stderr).toBe(0);
    const inst = await DuckDBInstance.create(file);
    const conn = await inst.connect();
    try {
      const held = (await conn.runAndReadAll('SELECT sellingprice::VARCHAR AS p FROM items ORDER BY ID')).getRowObjectsJS().map((x) => trimDecimal(String(x.p)));
      const total = trimDecimal(String((await conn.runAndReadAll('SELECT sum(sellingprice)::VARCHAR AS s FROM items')).getRowObjectsJS()[0]?.s));
      // Today: 0.0000123457, 0 and 0.0000000001 are held; the copy sums to 0.3000123458 where svc sum says 0.30001234573.
      expect({ held, total }).toEqual({ held: prices.map(decimal), total: exact });
    } finally {
      conn.closeSync();
      inst.closeSync();
    }
  });
});

describe('a value its column cannot take', () => {
  it.each(['sqlite', 'duckdb'])('%s: a flag the service sends as 2 stops the run with one line naming the record and the field (as export --format parquet does), never stored as false', async (engine) => {
    const id = (db().prepare('SELECT max(ID) AS id FROM "demo/accounts"').get() as { id: number }).id;
    force('UPDATE "demo/accounts" SET locked = 2 WHERE ID = ?', id);
    try {
      const parquet = await run(['accounts', 'export', '--fields', 'ID,locked', '--output', join(tempDir(), 'a.parquet')]);
      expect(parquet.code).toBe(1);
      expect(parquet.stderr).toContain(`record ${id}: locked is 2`);
      const file = join(tempDir(), `flag.${engine}`);
      const r = await run(['accounts', 'sync', '--into', file, '--fields', 'ID,locked']);
      let held: unknown = 'not read';
      if (r.code === 0) held = (await readBack(file, 'accounts')).find((x) => x.ID === id)?.locked;
      expect(r.code, `exit ${r.code}, the copy holds locked = ${String(held)} for record ${id}`).toBe(1);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(`record ${id}: locked is 2`);
    } finally {
      db().prepare('UPDATE "demo/accounts" SET locked = 0 WHERE ID = ?').run(id);
    }
  });
});

describe('svc sync --into FILE with several families, one of which fails', () => {
  it('the error names the family (the line alone does not say which family record N is in) and a fix that command can take', async () => {
    const id = (db().prepare('SELECT min(ID) AS id FROM "demo/payments"').get() as { id: number }).id;
    const was = (db().prepare('SELECT amount FROM "demo/payments" WHERE ID = ?').get(id) as { amount: number }).amount;
    db().prepare('UPDATE "demo/payments" SET amount = 1e30 WHERE ID = ?').run(id);
    try {
      const file = join(tempDir(), 'many.duckdb');
      const r = await run(['sync', '--into', file, 'groups', 'payments', 'users', '-o', 'ndjson']);
      expect(r.code).toBe(1);
      const line = r.stderr.split('\n').find((l) => /record \d+/.test(l)) ?? '';
      // Today: "svc: record 1: amount is 1e+30, not an amount below 10^28 (DECIMAL(38,10)) as the catalogue says; leave it out with --fields (and --reset), or export it as csv or ndjson"
      expect(line).toMatch(/payments/);
      // `svc sync` takes no --fields: the fix must be one the user can run, naming the family's own command.
      expect(line).toMatch(/svc payments sync/);
    } finally {
      db().prepare('UPDATE "demo/payments" SET amount = ? WHERE ID = ?').run(was, id);
    }
  });

  it('-o ndjson ("one line a family, for logs"): the line of a family synced before the failure is written, so the cron log shows what was copied', async () => {
    const id = (db().prepare('SELECT min(ID) AS id FROM "demo/payments"').get() as { id: number }).id;
    const was = (db().prepare('SELECT amount FROM "demo/payments" WHERE ID = ?').get(id) as { amount: number }).amount;
    db().prepare('UPDATE "demo/payments" SET amount = 1e30 WHERE ID = ?').run(id);
    try {
      const file = join(tempDir(), 'log.duckdb');
      const r = await run(['sync', '--into', file, 'groups', 'payments', '-o', 'ndjson']);
      expect(r.code).toBe(1);
      const status = await run(['sync', '--into', file, '--status', '-o', 'json']);
      const groups = (JSON.parse(status.stdout) as { family: string; rows: number; phase: string }[]).find((s) => s.family === 'groups');
      // groups was copied whole and committed…
      expect(groups).toMatchObject({ phase: 'ready' });
      expect(groups?.rows).toBeGreaterThan(0);
      // …but stdout, the log, carries nothing for it today.
      const lines = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { family: string; inserted: number });
      expect(lines.find((l) => l.family === 'groups')).toMatchObject({ inserted: groups?.rows });
    } finally {
      db().prepare('UPDATE "demo/payments" SET amount = ? WHERE ID = ?').run(was, id);
    }
  });
});
