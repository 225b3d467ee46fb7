// Startup benchmark: how much slower than a bare `node -e 0` svc starts.
// Runs every case in turn (interleaved, so machine noise hits all alike) and
// reports medians and ratios against the bare-node baseline of the same run.
//
//   npm run bench:startup              # 30 rounds
//   node bench/startup.mjs --rounds 50 --check   # exit 1 when a target is missed
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const args = process.argv.slice(2);
const rounds = Number(args[args.indexOf('--rounds') + 1]) || 30;
const check = args.includes('--check');

if (!existsSync(`${root}dist/svc.js`)) {
  console.error('bench: dist/svc.js is missing; run `npm run build` first');
  process.exit(2);
}

const cases = [
  { name: 'node -e 0 (baseline)', argv: ['-e', '0'] },
  { name: 'svc --version', argv: ['bin/svc.js', '--version'], target: 1.3 },
  { name: 'svc describe accounts (json)', argv: ['bin/svc.js', 'describe', 'accounts', '-o', 'json'], target: 1.6 },
  { name: 'svc describe accounts (table)', argv: ['bin/svc.js', 'describe', 'accounts', '-o', 'table'], target: 1.6 },
  { name: 'svc --help', argv: ['bin/svc.js', '--help'] },
];

function once(argv) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, argv, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

for (const c of cases) once(c.argv); // warm the file cache
const times = cases.map(() => []);
for (let r = 0; r < rounds; r++) cases.forEach((c, i) => times[i].push(once(c.argv)));

const base = median(times[0]);
let missed = 0;
console.log(`startup, ${rounds} interleaved rounds, node ${process.version}`);
console.log(`${'case'.padEnd(32)} ${'median ms'.padStart(10)} ${'ratio'.padStart(7)}  target`);
cases.forEach((c, i) => {
  const med = median(times[i]);
  const ratio = med / base;
  const ok = c.target === undefined || ratio <= c.target;
  if (!ok) missed++;
  const target = c.target === undefined ? '' : `<= ${c.target.toFixed(2)}x ${ok ? 'ok' : 'MISSED'}`;
  console.log(`${c.name.padEnd(32)} ${med.toFixed(1).padStart(10)} ${`${ratio.toFixed(2)}x`.padStart(7)}  ${target}`);
});
if (check && missed > 0) process.exit(1);
