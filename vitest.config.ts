import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import SkipReasons from './test/helpers/skip-reasons.js';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  define: { SVC_VERSION: JSON.stringify(pkg.version) },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    // Output of a failing CLI test is printed by the test itself (see helpers).
    // Every skipped test is listed with its reason before the summary (test/helpers/skip-reasons.ts).
    reporters: [new SkipReasons(), 'default'],
  },
});
