// A project of someone else's that depends on this package, with a lockfile: used by the Action's
// install (scripts/action-install.mjs: the packed tool and its runtime dependencies only), by
// `npm run check:git-install` and by the install tests (test/helpers/packed.ts).
//
// Its package-lock.json is made of this repository's lockfile entries for the runtime dependencies
// (so they are the versions this repository was tested with) and an entry for the package itself,
// resolved to `resolved` (a tarball path or a git URL at a commit). `npm ci` then installs exactly
// that; with `--offline`, every tarball comes from the npm cache a `npm ci` of this repository
// filled: a lockfile needs no registry metadata, a bare `npm install --offline <spec>` does.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const PACKAGE = 'voice-agent-contract';

/** The lockfile entries (`node_modules/...` path -> entry) of this package's runtime dependencies. */
export function runtimeEntries(lockfile) {
  const lock = JSON.parse(readFileSync(lockfile, 'utf8'));
  return Object.fromEntries(Object.entries(lock.packages).filter(([path, entry]) => path && !entry.dev));
}

/**
 * Writes package.json and package-lock.json of a project at `dir` that depends on this package as
 * `spec` (a tarball path, `file:` URL or git URL), from the lockfile at `lockfile`.
 */
export function writeConsumerProject(dir, spec, { lockfile, resolved = spec, name = 'consumer' }) {
  const lock = JSON.parse(readFileSync(lockfile, 'utf8'));
  const self = lock.packages[''];
  const packages = {
    '': { name, version: '1.0.0', dependencies: { [PACKAGE]: spec } },
    [`node_modules/${PACKAGE}`]: {
      version: self.version,
      resolved,
      license: self.license,
      dependencies: self.dependencies,
      bin: self.bin,
      engines: self.engines,
    },
    ...runtimeEntries(lockfile),
  };
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify(
      { name, version: '1.0.0', private: true, type: 'module', dependencies: { [PACKAGE]: spec } },
      null,
      2,
    ),
  );
  writeFileSync(
    join(dir, 'package-lock.json'),
    JSON.stringify({ name, version: '1.0.0', lockfileVersion: 3, requires: true, packages }, null, 2),
  );
}
