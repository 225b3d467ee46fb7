#!/usr/bin/env node
// svc: a thin shim (CommonJS, see bin/package.json: an ES module costs the
// loader's start-up). `npm run build` bundles the program into dist/svc.cjs and
// compiles it once into a V8 code cache, dist/svc.cjs.cache; this shim loads
// the bundle through that cache, so a command does not spend its start-up
// parsing and compiling JavaScript (Node 20 has no module.enableCompileCache).
//
// V8 checks only that a cache fits the V8 version, its flags and the source's
// length; a cache for other source of the same length would run that other
// code, and a damaged one can crash V8. So the cache file starts with the
// CRC-32 of the bundle it was made from and of its own data, and is used only
// when both match; otherwise the bundle compiles as usual (slower, same result).
// scripts/build.mjs makes the cache with these same functions.
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { Script } = require('node:vm');

const dist = join(__dirname, '..', 'dist');
const bundleFile = join(dist, 'svc.cjs');
const cacheFile = join(dist, 'svc.cjs.cache');
// The help build (src/cli/help-build.ts): the command tree and help without the commands' bodies.
const helpBundleFile = join(dist, 'help.cjs');
const helpCacheFile = join(dist, 'help.cjs.cache');
const MAGIC = 0x53564331; // "SVC1"
const HEADER = 12;

/** A bundle's bytes (the build keeps it ASCII, so latin1 reads it exactly and V8 keeps a one-byte string). */
function readBundle(file = bundleFile) {
  return readFileSync(file);
}

/**
 * CRC-32 (Node 20.15 and later), or undefined: then no cache is used. node:zlib loads the whole
 * stream stack (about 1.3 ms, a quarter of this shim's budget) for one native function, so the shim
 * takes that function from zlib's native binding (0.05 ms): the same one node:zlib's crc32 wraps.
 * process.binding is deprecated in the documentation only; where it would print a warning
 * (pending deprecations on) or is gone, node:zlib is loaded instead.
 */
function crc32Of() {
  const env = process.env;
  const pending = process.execArgv.includes('--pending-deprecation') || /--pending-deprecation/.test(env.NODE_OPTIONS || '') || env.NODE_PENDING_DEPRECATION === '1';
  if (!pending && typeof process.binding === 'function') {
    try {
      const native = process.binding('zlib').crc32;
      if (typeof native === 'function') return (data) => native(data, 0);
    } catch {
      // the public module below
    }
  }
  const { crc32 } = require('node:zlib');
  return typeof crc32 === 'function' ? crc32 : undefined;
}

/** The cache file's bytes: header (magic, CRC-32 of the bundle, CRC-32 of the data) and V8's data. */
function packCache(bundle, data) {
  const crc32 = crc32Of();
  if (!crc32) return undefined;
  const header = Buffer.alloc(HEADER);
  header.writeUInt32BE(MAGIC, 0);
  header.writeUInt32BE(crc32(bundle), 4);
  header.writeUInt32BE(crc32(data), 8);
  return Buffer.concat([header, data]);
}

/** V8's data from the cache file when it was made from this bundle and is intact, else undefined. */
function unpackCache(bundle, file) {
  const crc32 = file && file.length > HEADER && file.readUInt32BE(0) === MAGIC ? crc32Of() : undefined;
  if (!crc32 || file.readUInt32BE(4) !== crc32(bundle)) return undefined;
  const data = file.subarray(HEADER);
  return file.readUInt32BE(8) === crc32(data) ? data : undefined;
}

/** A bundle's exports, compiled with `cachedData` when given; the Script can make a new cache. */
function loadBundle(bundle, cachedData, filename = bundleFile, file = bundleFile) {
  // The bundle is the CommonJS wrapper function itself (see scripts/build.mjs).
  const script = new Script(bundle.toString("latin1"), { filename, ...(cachedData ? { cachedData } : {}) });
  const module = { exports: {} };
  // This module's require serves the bundle: Node's built-ins, and packages from the same node_modules
  // (the build names the one file it requires by a relative path from the bundle's folder).
  script.runInThisContext().call(module.exports, module.exports, require, module, file, dist);
  return { exports: module.exports, script };
}

/** Help (no arguments, `help …`, `-h`, `--help`) runs in the help build, with a cache of its own. */
function isHelp(argv) {
  return argv.length === 0 || argv[0] === 'help' || argv.includes('--help') || argv.includes('-h');
}

/** The help build's answer to "run this with the whole program" (src/cli/help-build.ts). */
const NEEDS_FULL_BUILD = -1;

function readCache(file) {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Runs the command line in one bundle; resolves to its exit code. */
function runIn(file, cache, argv) {
  const bundle = readBundle(file);
  return loadBundle(bundle, unpackCache(bundle, readCache(cache)), file, file).exports.main(argv);
}

function cannotRead(err) {
  // A clone before its first build (or a damaged install): say what to do, not a stack trace.
  const fix = err && err.code === 'ENOENT' ? 'svc is not built yet: run `npm run build` in its folder (npm test and npm run demo build too)' : `reinstall svc or run \`npm run build\``;
  process.stderr.write(`svc: cannot read ${bundleFile} (${(err && err.code) || 'error'}); ${fix}\n`);
  process.exitCode = 1;
}

function run(argv) {
  let ran;
  try {
    // Help goes to the help build, unless it is missing (then the whole program answers, slower, the same).
    ran = isHelp(argv) ? runIn(helpBundleFile, helpCacheFile, argv).catch(() => NEEDS_FULL_BUILD) : undefined;
  } catch {
    ran = undefined;
  }
  Promise.resolve(ran).then((code) => {
    if (code !== undefined && code !== NEEDS_FULL_BUILD) {
      process.exitCode = code;
      return;
    }
    let full;
    try {
      full = runIn(bundleFile, cacheFile, argv);
    } catch (err) {
      cannotRead(err);
      return;
    }
    full.then((c) => {
      process.exitCode = c;
    });
  });
}

Object.assign(exports, { readBundle, loadBundle, packCache, unpackCache, cacheFile, helpCacheFile, bundleFile, helpBundleFile });

/** `svc --version --verbose` (in either order, or `-Vv`): the long form, `svc version`. */
function isVerboseVersion(argv) {
  const words = argv.length === 1 && /^-(Vv|vV)$/.test(argv[0]) ? ['-V', '-v'] : argv;
  return words.length === 2 && words.some((w) => w === '--version' || w === '-V') && words.some((w) => w === '--verbose' || w === '-v');
}

if (require.main === module) {
  const argv = process.argv.slice(2);
  if (isVerboseVersion(argv)) run(['version']);
  else if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    // The version the build bakes into the bundle (package.json's), without loading it. A failed
    // write (a closed pipe, a full disk) is left to the bundle, which says so as for any output.
    process.stdout.once('error', () => run(argv));
    process.stdout.write(`${JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version}\n`);
  } else run(argv);
}
