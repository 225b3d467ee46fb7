/**
 * The sandbox's regular-expression engine (the re2 native addon) must load
 * in every thread that runs a sandbox: the export benchmark runs one in a
 * worker thread after another, and re2 1.23 aborted the whole process (a V8
 * fatal error) the second time a thread loaded it. Checked in a child
 * process, so a crash fails this test instead of the test runner.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

describe('the regular-expression engine', () => {
  it('loads and matches in one worker thread after another', () => {
    const re2 = createRequire(import.meta.url).resolve('re2');
    const script = `
      const { Worker } = require('node:worker_threads');
      const code = 'const R = require(' + JSON.stringify(${JSON.stringify(re2)}) + '); if (!new R("^[a-zß]+$", "iu").test("STRASSE") && !new R("^[a-zß]+$", "iu").test("Straße")) process.exit(3);';
      (async () => {
        for (let i = 0; i < 3; i++) {
          await new Promise((resolve, reject) => { const w = new Worker(code, { eval: true }); w.on('exit', (c) => (c === 0 ? resolve() : reject(new Error('exit ' + c)))); w.on('error', reject); });
        }
        console.log('ok');
      })().catch((e) => { console.error(e.message); process.exit(1); });
    `;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(r.status, `${r.stdout}${r.stderr.slice(0, 400)}`).toBe(0);
    expect(r.stdout).toBe('ok\n');
  });
});
