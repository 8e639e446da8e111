// Loads the CLI: dist/cli/vapc.cjs, the compiled CLI and the libraries it always needs bundled into
// one CommonJS file by the build (scripts/build-cli.ts), compiled with V8's code cache
// (dist/cli/vapc.cjs.cache, written by the build after a warm-up run) so a run does not spend a
// quarter of its time resolving, reading and compiling some 300 modules of its own and those of
// its libraries. See ARCHITECTURE.md "The CLI bundle and its code cache".
//
// V8 checks a cache against its own version and flags and the source's length only, so the cache
// file starts with a SHA-1 of the script it was made from (the bundle in this file's wrapper): a
// cache of another bundle (a hand edit of the same length, a half-finished build) is not used,
// and neither is a truncated or foreign file. Without a usable cache the bundle is compiled as any
// script is: slower, never different.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

export const bundleFile = fileURLToPath(new URL('../dist/cli/vapc.cjs', import.meta.url));
export const cacheFile = `${bundleFile}.cache`;
const KEY_BYTES = 20;

// The bundle runs as a CommonJS module's body does, inside this wrapper.
const HEAD = '(function (exports, require, module, __filename, __dirname) {';
const TAIL = '\n})';

function readCache(file, key) {
  try {
    const bytes = readFileSync(file);
    return bytes.length > KEY_BYTES && bytes.subarray(0, KEY_BYTES).equals(key) ? bytes.subarray(KEY_BYTES) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Compiles and evaluates the bundle. `cacheAccepted` says whether V8 used the cache;
 * `makeCache()` returns the bytes of a cache file for this bundle, with every function compiled
 * so far (call it after a run).
 */
export function loadCli({ bundle = bundleFile, cache = `${bundle}.cache` } = {}) {
  const bytes = readFileSync(bundle);
  // The SHA-1 of the script's text, hashed from the file's bytes (cheaper than from the string).
  const key = createHash('sha1').update(HEAD).update(bytes).update(TAIL).digest();
  const cachedData = readCache(cache, key);
  const script = new vm.Script(`${HEAD}${bytes.toString('utf8')}${TAIL}`, {
    filename: bundle,
    cachedData,
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  return {
    main: module.exports.main,
    cacheAccepted: cachedData !== undefined && !script.cachedDataRejected,
    makeCache: () => Buffer.concat([key, script.createCachedData()]),
  };
}
