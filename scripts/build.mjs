// Bundles src/cli/main.ts into dist/svc.cjs with esbuild, then compiles it once
// into a V8 code cache (dist/svc.cjs.cache) that bin/svc.js loads it through.
//
// Why one CommonJS file and a code cache: Node 20 compiles every module it
// loads on every start (module.enableCompileCache came in Node 22), and for
// svc that was most of a command's start-up. A code cache can only be given to
// a script (node:vm), not to an ES module, so the bundle is CommonJS. Modules
// that load later (a command's body, the sandbox) are still initialised only
// when used: esbuild turns dynamic imports into lazy initialisers.
import { build, transform } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const root = new URL('..', import.meta.url).pathname;

// The commit `svc version` names: git's short hash of HEAD, "-dirty" when tracked files have changes,
// "unknown" outside a git checkout (a tarball, a copy) or without git.
function gitCommit() {
  const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }).trim();
  try {
    // The checkout must be svc's own, not one that merely contains this folder (a copy, node_modules).
    if (realpathSync(git('rev-parse', '--show-toplevel')) !== realpathSync(root)) return 'unknown';
    const hash = git('rev-parse', '--short', 'HEAD');
    return git('status', '--porcelain', '--untracked-files=no') ? `${hash}-dirty` : hash;
  } catch {
    return 'unknown';
  }
}
const commit = gitCommit();

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

// conf, bundled on its own: profiles are read without it (a plain JSON read),
// and a profile write requires it then (src/config/profiles.ts).
const CONF_BUNDLE = 'chunks/conf.cjs';
await build({
  // With proper-lockfile's lockSync, which a profile write takes (a lock around conf's read-modify-write).
  stdin: { contents: "export { default } from 'conf'; export { lockSync } from 'proper-lockfile';", resolveDir: root, loader: 'js', sourcefile: 'conf-entry.js' },
  outfile: `dist/${CONF_BUNDLE}`,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});

// The OAuth libraries (oauth4webapi, proper-lockfile), bundled on their own like the sandbox: only a
// browser sign-in, a token refresh or a logout that revokes loads them (src/auth/oauth/libs.ts).
const OAUTH_CHUNK = 'chunks/oauth.cjs';
await build({
  entryPoints: ['src/auth/oauth/libs-source.ts'],
  outfile: `dist/${OAUTH_CHUNK}`,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});
const oauthApart = {
  name: 'oauth-apart',
  setup(b) {
    b.onResolve({ filter: /\/libs-source\.js$/ }, (args) => (args.importer.endsWith('/src/auth/oauth/libs.ts') ? { path: `./${OAUTH_CHUNK}`, external: true } : undefined));
  },
};

// hyparquet-writer's Thrift writers (page headers, the footer), bundled on their own like the OAuth libraries:
// only a Parquet export loads them (src/export/parquet/libs.ts).
const PARQUET_CHUNK = 'chunks/parquet.cjs';
await build({
  entryPoints: ['src/export/parquet/libs-source.ts'],
  outfile: `dist/${PARQUET_CHUNK}`,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});
const parquetApart = {
  name: 'parquet-apart',
  setup(b) {
    b.onResolve({ filter: /\/libs-source\.js$/ }, (args) => (args.importer.endsWith('/src/export/parquet/libs.ts') ? { path: `./${PARQUET_CHUNK}`, external: true } : undefined));
  },
};

// commander requires node:child_process at load, for subcommands that are separate executables,
// which svc has none of; node:child_process is not in Node's snapshot (~1.5 ms of every start).
// commander gets it through a stand-in that requires it on first use.
const lazyChildProcessForCommander = {
  name: 'lazy-child-process-for-commander',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      args.importer.includes('/node_modules/commander/') ? { path: 'lazy-child-process', namespace: 'svc-lazy' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'svc-lazy' }, () => ({
      contents: "module.exports = new Proxy({}, { get: (_, key) => require('node:child_process')[key] });",
      loader: 'js',
    }));
  },
};

// The catalogue's family texts (230 KB of JSON) go to dist/catalogue.json, read on the first use of a
// family's details, instead of sitting in the bundle: there every start would read them and deserialise
// them with the code cache, and `svc --help` needs only the families' names, titles and access.
const CATALOGUE_FILE = 'catalogue.json';
const catalogueModule = join(root, 'src', 'catalogue', 'resources.gen.ts');
const { code: catalogueCode } = await transform(readFileSync(catalogueModule, 'utf8'), { loader: 'ts', format: 'cjs' });
const catalogueModuleObject = { exports: {} };
new Function('module', 'exports', catalogueCode)(catalogueModuleObject, catalogueModuleObject.exports);
const catalogueExports = catalogueModuleObject.exports;
const familyTexts = Object.fromEntries(catalogueExports.generatedFamilies.map((f) => [f.name, f.text]));
mkdirSync(new URL('../dist', import.meta.url), { recursive: true });
writeFileSync(new URL(`../dist/${CATALOGUE_FILE}`, import.meta.url), JSON.stringify(familyTexts));
const catalogueApart = {
  name: 'catalogue-apart',
  setup(b) {
    b.onLoad({ filter: /\/src\/catalogue\/resources\.gen\.ts$/ }, () => {
      const headers = catalogueExports.generatedFamilies.map(({ text, ...header }) => header);
      return {
        loader: 'js',
        contents: [
          "import { readFileSync } from 'node:fs';",
          "import { join } from 'node:path';",
          'let texts;',
          `const textOf = (name) => (texts ??= JSON.parse(readFileSync(join(__dirname, ${JSON.stringify(CATALOGUE_FILE)}), 'utf8')))[name];`,
          `export const generatedFamilies = ${JSON.stringify(headers)}.map((h) => Object.defineProperty(h, 'text', { enumerable: true, get: () => textOf(h.name) }));`,
        ].join('\n'),
      };
    });
  },
};

// The sandbox is a program of its own (it imports only the catalogue and the base, never client code:
// the architecture rules check it), started by `svc sandbox start` and `reset`. It is bundled apart, into
// dist/sandbox.cjs, so that every other command neither reads it nor deserialises it with the code cache.
const SANDBOX_BUNDLE = 'sandbox.cjs';
const sandboxApart = {
  name: 'sandbox-apart',
  setup(b) {
    b.onResolve({ filter: /\/sandbox\/server\.js$/ }, (args) =>
      args.importer.includes('/src/sandbox/') ? undefined : { path: `./${SANDBOX_BUNDLE}`, external: true },
    );
  },
};
await build({
  entryPoints: ['src/sandbox/server.ts'],
  outfile: `dist/${SANDBOX_BUNDLE}`,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  define: { SVC_VERSION: JSON.stringify(pkg.version), 'import.meta.url': '__svcModuleUrl' },
  banner: { js: 'const __svcModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
  external: ['better-sqlite3', 're2'],
  plugins: [catalogueApart],
  logLevel: 'warning',
});

// The help build (src/cli/help-build.ts): the same program, with every module it loads lazily left out but
// those the help paths load (below); a left-out module is a stand-in that throws, which sends the command line
// to the whole program. test/cli/help-build.test.ts runs every help path in it.
const HELP_MODULES = /\/src\/(cli\/(run|program|help-topics)|errors|http\/startup-trust|util\/io-error|filter\/help)\.[jt]s$/;
const helpOnly = {
  name: 'help-only',
  setup(b) {
    b.onResolve({ filter: /^\./ }, (args) =>
      args.kind === 'dynamic-import' && !HELP_MODULES.test(join(args.resolveDir, args.path)) ? { path: join(args.resolveDir, args.path), namespace: 'svc-left-out' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'svc-left-out' }, (args) => ({
      contents: `throw Object.assign(new Error(${JSON.stringify(`the help build does not hold ${args.path.slice(root.length)}`)}), { code: 'SVC_FULL_BUILD' });`,
      loader: 'js',
    }));
  },
};

const bundleOf = (name, help) => build({
  entryPoints: { [name]: 'src/cli/main.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  define: {
    SVC_VERSION: JSON.stringify(pkg.version),
    SVC_COMMIT: JSON.stringify(commit),
    SVC_CONF_BUNDLE: JSON.stringify(`./${CONF_BUNDLE}`),
    SVC_HELP_BUILD: JSON.stringify(help),
    // The modules that find files beside themselves (conf's bundle, native addons, bin/svc.js) get the bundle's URL.
    'import.meta.url': '__svcModuleUrl',
  },
  // The bundle is a function expression of the CommonJS wrapper's parameters: bin/svc.js compiles it as it
  // is (no copy of the source with the wrapper around it) and calls it.
  // import.meta.url becomes a call made only where it is read (pathToFileURL costs ~0.3 ms at every start otherwise).
  banner: { js: '(function (exports, require, module, __filename, __dirname) { let __svcUrl; const __svcModuleUrl = () => (__svcUrl ??= require("node:url").pathToFileURL(__filename).href);' },
  footer: { js: '})' },
  plugins: [lazyChildProcessForCommander, sandboxApart, oauthApart, parquetApart, catalogueApart, ...(help ? [helpOnly] : [])],
  // Native addons load their .node binaries at run time: keep them out of the bundle. So are
  // the large packages only a rare path needs, which every start would otherwise read and
  // deserialise: undici (only behind a proxy) and selfsigned (only `svc sandbox start --https`).
  // jq-web (--jq's engine, jq compiled to WebAssembly) is never imported by the bundle: src/output/jq-engine.ts
  // resolves its path from the bundle's URL and a worker thread requires it from node_modules, where it finds
  // its jq.wasm beside its jq.js. Listed so that an import of it would stay out of the bundle (bundled, its glue
  // would look for jq.wasm in dist/).
  external: ['better-sqlite3', '@napi-rs/keyring', 're2', 'conf', 'undici', 'selfsigned', 'jq-web', '@duckdb/node-api'],
  // Whitespace and syntax minified, names kept (stack traces and error names read as in the source): every
  // start reads the bundle, copies it into a V8 string and checks its CRC-32, in proportion to its size.
  minifyWhitespace: true,
  minifySyntax: true,
  keepNames: false,
  logLevel: 'warning',
  write: false,
});
const bundled = { outputFiles: [...(await bundleOf('svc', false)).outputFiles, ...(await bundleOf('help', true)).outputFiles] };
// A script compiled by node:vm cannot import() (Node 20 needs --experimental-vm-modules
// for that), and the bundle's only dynamic imports left are of Node's built-in
// modules: require them instead (their exports are the same object).
for (const file of bundled.outputFiles) {
  const text = !file.path.endsWith('.cjs')
    ? file.text
    : file.text
        .replace(/\bimport\(("(?:node:[a-z_/]+|selfsigned|\.\/sandbox\.cjs|\.\/chunks\/oauth\.cjs|\.\/chunks\/parquet\.cjs)")\)/g, 'Promise.resolve().then(() => require($1))')
        // The CommonJS packages kept outside the bundle that load lazily (the sync's databases): as import()
        // would give them, their exports with `default` the whole module.
        .replace(/\bimport\(("(?:better-sqlite3|@duckdb\/node-api)")\)/g, 'Promise.resolve().then(() => { const m = require($1); return { ...m, default: m }; })')
        .replace(/\b__svcModuleUrl\b(?! = \(\) =>)/g, '__svcModuleUrl()')
        // bin/svc.js gives the bundle its own require (packages resolve from the same node_modules); the
        // one file the bundle requires by a relative path is named from the bundle's folder.
        .replace(/require\("\.\/(sandbox\.cjs|chunks\/oauth\.cjs|chunks\/parquet\.cjs)"\)/g, 'require(__dirname + "/$1")')
        // esbuild escapes strings but leaves comments and regular expressions as written: escaped
        // too, the file is ASCII, which V8 keeps as a one-byte string (half the memory and time).
        .replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const code = text.split('\n').filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line)).join('\n');
  if (file.path.endsWith('.cjs') && /(?<![\w$.])import\(\s*["'`]/.test(code)) {
    const left = [...code.matchAll(/.{0,60}(?<![\w$.])import\(\s*["'`].{0,60}/g)].map((m) => m[0]).slice(0, 3).join(' | ');
    throw new Error(`build: dist/svc.cjs still calls import(); only node: built-ins, selfsigned, better-sqlite3, @duckdb/node-api, the sandbox bundle and the OAuth and Parquet chunks are turned into require: ${left}`);
  }
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, text);
}

// The code cache holds what V8 compiled while it ran: run the common paths
// once (help, describe, the filter, a count, a query and a get against a
// throwaway local server that answers like the service) so their functions
// are in it, then save it.
const shim = createRequire(import.meta.url)('../bin/svc.js');
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    if (req.url?.endsWith('/accounts/1')) res.end('{"ID":1,"lastname":"Warm","type":0,"lastmodified":1700000000}');
    else if (req.method === 'POST') res.end(body.includes('"count":true') ? '{"count":1}' : '[{"ID":1,"lastname":"Warm"}]');
    else res.end('{}');
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const temp = mkdtempSync(join(tmpdir(), 'svc-build-'));
let errors = '';
const sink = (isTTY, keep) => ({ isTTY, columns: isTTY ? 100 : undefined, write: (s) => ((errors += keep ? String(s) : ''), true) });
const deps = (tty) => ({
  stdout: sink(tty),
  stderr: sink(false, true),
  stdin: { isTTY: false, async *[Symbol.asyncIterator]() {} },
  env: { SVC_URL: `http://127.0.0.1:${server.address().port}/warm`, SVC_TOKEN: 'warm-up', NO_COLOR: '1' },
  now: () => Date.now(),
  configDir: join(temp, 'config'),
});
// Two caches: one for help (what bin/svc.js's isHelp() picks), one for everything else; each holds only
// what its paths compile, since deserialising a cache costs in proportion to its size. Each is made
// from a load of its own (under a name of its own, so that V8 does not hand the second load the first's
// compiled code); V8 takes a cache for the source whatever the name.
const kinds = [
  ['help', shim.helpBundleFile, shim.helpCacheFile, [[['--help'], false], [['accounts', '--help'], false]]],
  [
    'commands',
    shim.bundleFile,
    shim.cacheFile,
    [
      [['describe', 'accounts'], true],
      [['describe', 'accounts', '-o', 'json'], false],
      [['accounts', 'count'], false],
      [['accounts', 'count', '--filter', 'ID > 1 and lastname ~ "^W"', '--print-request'], false],
      [['accounts', 'query', '--limit', '1'], true],
      [['accounts', 'query', '--limit', '1', '-o', 'csv'], false],
      [['accounts', 'get', '1'], false],
    ],
  ],
];
try {
  for (const [kind, bundleFile, file, runs] of kinds) {
    const bundleBytes = shim.readBundle(bundleFile);
    const { exports: bundle, script } = shim.loadBundle(bundleBytes, undefined, `${bundleFile}?${kind}`, bundleFile);
    for (const [argv, tty] of runs) {
      const code = await bundle.run(argv, deps(tty));
      if (code !== 0) throw new Error(`build: warming the ${kind} code cache, svc ${argv.join(' ')} exited ${code}: ${errors}`);
    }
    const packed = shim.packCache(bundleBytes, script.createCachedData());
    if (!packed) throw new Error('build: this Node has no zlib.crc32 (Node 20.15 or later): cannot make the code cache');
    writeFileSync(file, packed);
  }
} finally {
  server.close();
  rmSync(temp, { recursive: true, force: true });
}
