// Table rendering: svc's renderer against cli-table3 (the design card's choice)
// on the same rows in the same run. Why svc draws its own tables: see README.
//
//   npm run bench:table
import { performance } from 'node:perf_hooks';
import Table from 'cli-table3';
import { renderTable } from '../src/output/table.js';

const columnsCount = 8;
const columns = Array.from({ length: columnsCount }, (_, i) => ({ key: `c${i}` }));
const makeRows = (n: number) =>
  Array.from({ length: n }, (_, r) => Object.fromEntries(columns.map((c, i) => [c.key, i % 3 === 0 ? r * 7919 : `value ${r}-${i} Müller`])));

function cliTable3(rows: Record<string, unknown>[]): string {
  const t = new Table({
    head: columns.map((c) => c.key.toUpperCase()),
    chars: { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ' },
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
  });
  for (const row of rows) t.push(columns.map((c) => String(row[c.key])));
  return t.toString();
}

function time(fn: () => string, repeat: number): number {
  const samples: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1] ?? 0;
}

console.log(`table rendering, ${columnsCount} columns, median of 5, node ${process.version}`);
console.log(`${'rows'.padStart(6)} ${'cli-table3 ms'.padStart(14)} ${'svc ms'.padStart(9)} ${'speed-up'.padStart(9)}`);
for (const n of [20, 1000, 10000]) {
  const rows = makeRows(n);
  const repeat = n >= 10000 ? 1 : 5;
  const base = time(() => cliTable3(rows), repeat);
  const ours = time(() => renderTable(columns, rows, { color: false, width: 200 }), repeat);
  console.log(`${String(n).padStart(6)} ${base.toFixed(1).padStart(14)} ${ours.toFixed(1).padStart(9)} ${`${(base / ours).toFixed(0)}x`.padStart(9)}`);
}
