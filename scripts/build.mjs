// Bundles src/cli/main.ts into dist/ with esbuild: one small entry chunk, and a
// lazily loaded chunk per command body, so `svc --version` loads little.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

// conf, bundled on its own as CommonJS: profiles are read without it (a plain
// JSON read), and a profile write, which is synchronous, requires it then
// (src/config/profiles.ts). An ES chunk could only be imported asynchronously.
const CONF_BUNDLE = 'conf.cjs';
const BANNER = "import { createRequire as __svcRequire } from 'node:module'; const require = __svcRequire(import.meta.url);";
await build({
  stdin: { contents: "export { default } from 'conf';", resolveDir: new URL('..', import.meta.url).pathname, loader: 'js', sourcefile: 'conf-entry.js' },
  outfile: `dist/chunks/${CONF_BUNDLE}`,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});

const result = await build({
  entryPoints: { svc: 'src/cli/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
  define: { SVC_VERSION: JSON.stringify(pkg.version), SVC_CONF_BUNDLE: JSON.stringify(`./${CONF_BUNDLE}`) },
  // Native addons load their .node binaries at run time: keep them out of the bundle.
  // conf is required from its own bundle above.
  external: ['better-sqlite3', '@napi-rs/keyring', 'conf'],
  // commander and cli-table3 are CommonJS: give the ESM bundle a require() (kept below only where used).
  banner: { js: BANNER },
  write: false,
  logLevel: 'warning',
});

// Every chunk a command loads costs its start-up; the banner's createRequire
// too (~0.1 ms a chunk). Only chunks that call require themselves (esbuild's
// runtime chunk, which CommonJS packages reach through __require) keep it.
// The banner is the first line and maps to nothing: dropping it shifts the
// source map by that one empty line.
const usesRequire = /(?<![\w$.])require\b/;
const outputs = new Map(result.outputFiles.map((f) => [f.path, f]));
let stripped = 0;
for (const file of result.outputFiles) {
  if (!file.path.endsWith('.js')) continue;
  const text = file.text;
  const map = outputs.get(`${file.path}.map`);
  if (!text.startsWith(`${BANNER}\n`) || usesRequire.test(text.slice(BANNER.length + 1))) continue;
  const json = map && JSON.parse(map.text);
  if (!json?.mappings.startsWith(';')) continue;
  outputs.set(file.path, { path: file.path, contents: Buffer.from(text.slice(BANNER.length + 1)) });
  outputs.set(map.path, { path: map.path, contents: Buffer.from(JSON.stringify({ ...json, mappings: json.mappings.slice(1) })) });
  stripped++;
}
// The entry imports esbuild's runtime chunk (its helpers for CommonJS
// packages) for its side effects alone, though it uses none of them: every
// chunk that does imports it itself. Dropped, `svc --version` loads one
// module less. The import is the entry's first line, mapping to nothing.
const entry = [...outputs.values()].find((f) => f.path.endsWith('/dist/svc.js'));
const runtimeImport = /^import "(\.\/chunks\/chunk-[A-Z0-9]+\.js)";\n/;
const imported = entry && runtimeImport.exec(Buffer.from(entry.contents).toString());
if (imported) {
  const runtime = [...outputs.values()].find((f) => f.path.endsWith(imported[1].slice(1)));
  const runtimeText = runtime && Buffer.from(runtime.contents).toString();
  const entryText = Buffer.from(entry.contents).toString().slice(imported[0].length);
  const helpers = runtimeText ? [...runtimeText.matchAll(/^var (__\w+) =/gm)].map((m) => m[1]) : [];
  const entryMap = outputs.get(`${entry.path}.map`);
  const json = entryMap && JSON.parse(Buffer.from(entryMap.contents).toString());
  const onlyRuntime = runtimeText && helpers.length > 0 && !/^\/\/ (src|node_modules)\//m.test(runtimeText);
  if (onlyRuntime && !helpers.some((h) => entryText.includes(h)) && json?.mappings.startsWith(';')) {
    outputs.set(entry.path, { path: entry.path, contents: Buffer.from(entryText) });
    outputs.set(entryMap.path, { path: entryMap.path, contents: Buffer.from(JSON.stringify({ ...json, mappings: json.mappings.slice(1) })) });
  }
}
for (const file of outputs.values()) {
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, file.contents);
}
if (stripped === 0) throw new Error('build: no chunk lost the require banner; check BANNER and the chunks');

// SVC_CONF_BUNDLE is relative to the module that requires it: it must sit in dist/chunks/.
const withProfiles = Object.entries(result.metafile.outputs).filter(([, o]) => Object.keys(o.inputs).includes('src/config/profiles.ts'));
if (withProfiles.length !== 1 || !withProfiles[0][0].startsWith('dist/chunks/')) {
  throw new Error(`build: src/config/profiles.ts must land in one chunk under dist/chunks/, not ${withProfiles.map(([f]) => f).join(', ')}`);
}
