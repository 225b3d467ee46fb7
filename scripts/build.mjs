// Bundles src/cli/main.ts into dist/ with esbuild: one small entry chunk, and a
// lazily loaded chunk per command body, so `svc --version` loads little.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { svc: 'src/cli/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  define: { SVC_VERSION: JSON.stringify(pkg.version) },
  // Native addons load their .node binaries at run time: keep them out of the bundle.
  external: ['better-sqlite3', '@napi-rs/keyring'],
  // commander and cli-table3 are CommonJS: give the ESM bundle a require().
  banner: { js: "import { createRequire as __svcRequire } from 'node:module'; const require = __svcRequire(import.meta.url);" },
  logLevel: 'warning',
});
