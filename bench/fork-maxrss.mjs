// Why bench/export.ts reads a child's VmHWM and not getrusage's maxrss: on
// Linux, maxrss carries over exec the peak of the process image exec replaced,
// here a fork of a parent that holds MB megabytes. The child itself is small.
//
//   node bench/fork-maxrss.mjs 400
import { spawnSync } from 'node:child_process';

const mb = Number(process.argv[2] ?? 400);
const held = Array.from({ length: mb }, () => Buffer.alloc(1 << 20, 1));
const child = `const status = require('node:fs').readFileSync('/proc/self/status', 'utf8');
console.log('maxrss', Math.round(process.resourceUsage().maxRSS / 1024), 'MB, VmHWM', Math.round(Number(/VmHWM:\\s+(\\d+)/.exec(status)[1]) / 1024), 'MB');`;
const r = spawnSync(process.execPath, ['-e', child], { encoding: 'utf8' });
console.log(`parent holds ${held.length} MB (RSS ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB); its child reports ${r.stdout.trim()}`);
