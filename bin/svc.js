#!/usr/bin/env node
// svc: a thin shim (CommonJS, see bin/package.json: an ES module costs the
// loader's start-up). `npm run build` bundles the program into dist/svc.cjs and
// compiles it once into a V8 code cache, dist/svc.cjs.cache; this shim loads
// the bundle through that cache, so a command does not spend its start-up
// parsing and compiling JavaScript (Node 20 has no module.enableCompileCache).
// V8 refuses a cache made by another Node or V8, and the bundle then compiles
// as usual. scripts/build.mjs makes the cache with this same function.
'use strict';
const { readFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { join } = require('node:path');
const { Script } = require('node:vm');

const dist = join(__dirname, '..', 'dist');

/** The bundle's exports, compiled with `cachedData` when given; the Script can make a new cache. */
function loadBundle(cachedData) {
  const file = join(dist, 'svc.cjs');
  // The build keeps the bundle ASCII, so latin1 reads it exactly and V8 keeps a one-byte string.
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'latin1')}\n})`;
  const script = new Script(source, { filename: file, ...(cachedData ? { cachedData } : {}) });
  const bundle = { exports: {} };
  script.runInThisContext().call(bundle.exports, bundle.exports, createRequire(file), bundle, file, dist);
  return { exports: bundle.exports, script };
}

function readCache() {
  try {
    return readFileSync(join(dist, 'svc.cjs.cache'));
  } catch {
    return undefined;
  }
}

exports.loadBundle = loadBundle;

if (require.main === module) {
  const argv = process.argv.slice(2);
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    // The same version the build bakes into the bundle (package.json's), without loading it.
    process.stdout.write(`${JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version}\n`);
  } else run(argv);
}

function run(argv) {
  loadBundle(readCache())
    .exports.main(argv)
    .then((code) => {
      process.exitCode = code;
    });
}
