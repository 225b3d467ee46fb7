// Preloaded into a measured process (`node --require bench/peak-rss.cjs …`):
// writes its peak RSS in KiB to BENCH_RSS_FILE at exit, the high-water mark of
// its own memory (Linux's VmHWM). Not getrusage's maxrss: on Linux that
// carries over exec the peak of the process image it replaced (a fork of the
// bench, which may hold a seeded sandbox: children of bench/export.ts
// reported 95-103 MB while their own peak was ~80 MB); maxrss is the fallback
// where /proc is absent.
//
// CommonJS and --require, not an ES module and --import: an ES module
// preload starts Node's ES module loader, about 8 ms a process here, which
// svc (bin/svc.js is CommonJS) does not otherwise pay; the benchmark would
// count it against svc's short runs (an incremental sync at 1M is 0.35 s).
// Measured: `node --version`-like svc start 50 ms bare, 50 ms with this file,
// 58 ms with the same code as an ES module through --import.
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');

function peakKb() {
  try {
    return Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
  } catch {
    return process.resourceUsage().maxRSS;
  }
}

process.on('exit', () => {
  if (process.env.BENCH_RSS_FILE) writeFileSync(process.env.BENCH_RSS_FILE, String(peakKb()));
});
