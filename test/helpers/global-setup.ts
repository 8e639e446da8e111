/**
 * vitest's global setup (vitest.config.ts): runs once, in the main process, before any test file
 * and after the last.
 *
 * - **Chromium, installed once.** When the run includes a browser test (a file importing
 *   helpers/chromium) and /usr/bin/chromium is missing, one scripts/ensure-chromium.sh starts here in
 *   the background; the browser tests wait for it (helpers/chromium.ts) while the rest run. Never
 *   three apt-gets at once, and a machine where it cannot be installed gets one sentence per browser
 *   test file saying why.
 * - **vapc serve's default port held.** 127.0.0.1:4010 is bound for the run (when free), so a test
 *   that binds it (a server started without `port: 0`) fails here as it would beside a developer's
 *   `vapc serve`.
 * - **The checkout's reports left alone.** `reports/` (where `npm start` leaves its report) and the
 *   untracked files are the same after the run as before it, or the run fails naming what changed
 *   (helpers/user-files.ts). reports/latest exists during the run (made empty when missing, removed
 *   after when still empty), since a run that cannot start marks only an existing report dir.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { packageRoot } from '../../src/paths.js';
import { CHROMIUM_PATH, startChromiumInstall } from './chromium-install.js';
import { changedUserFiles, snapshotUserFiles } from './user-files.js';

export const DEFAULT_SERVE_PORT = 4010;

/** Binds 127.0.0.1:4010 for the run; undefined when something already holds it (the same effect). */
function bindPort(port: number): Promise<Server | undefined> {
  return new Promise((done) => {
    const server = createServer((socket) => socket.destroy());
    server.once('error', () => done(undefined));
    server.listen(port, '127.0.0.1', () => done(server));
  });
}

/**
 * Holds the port for the whole run: when something else holds it at the start (a `vapc serve`, or
 * another checkout's test run on the same machine), it is taken over within 100 ms of being let go.
 * Returns the release.
 */
async function holdPort(port: number): Promise<() => Promise<void>> {
  let server = await bindPort(port);
  let stopped = false;
  const retry = async (): Promise<void> => {
    while (!server && !stopped) {
      await new Promise((r) => setTimeout(r, 100).unref());
      if (!stopped) server = await bindPort(port);
    }
    if (stopped) server?.close();
  };
  const retrying = retry();
  return async () => {
    stopped = true;
    await retrying;
    await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  };
}

/** Whether the files this run selected include a browser test (one that imports helpers/chromium). */
async function runsBrowserTests(project: TestProject): Promise<boolean> {
  // The CLI's file filters (`vitest run a.test.ts`); vitest keeps them on its instance.
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
  const specs = await project.vitest.getRelevantTestSpecifications(filters);
  return specs.some((s) => /helpers\/chromium(\.js)?['"]/.test(readFileSync(s.moduleId, 'utf8')));
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // vapc marks an existing report dir as aborted when a run cannot start: a test that runs vapc
  // without --report-dir changes reports/latest only if it exists, so it exists during the run.
  const latest = join(packageRoot, 'reports', 'latest');
  const madeLatest = !existsSync(latest);
  mkdirSync(latest, { recursive: true });
  const before = snapshotUserFiles(packageRoot);
  const releasePort = await holdPort(DEFAULT_SERVE_PORT);
  const install = !existsSync(CHROMIUM_PATH) && (await runsBrowserTests(project)) ? startChromiumInstall() : undefined;
  if (install)
    process.stderr.write(
      `vapc tests: installing Debian's chromium for the browser tests in the background (scripts/ensure-chromium.sh; log ${install.files.log})\n`,
    );
  project.provide('chromiumInstall', install?.files ?? null);
  return async () => {
    await releasePort();
    // An apt-get is never cut short: a half-configured dpkg would break the next install.
    await install?.ended;
    const changed = changedUserFiles(before, snapshotUserFiles(packageRoot));
    if (madeLatest && readdirSync(latest).length === 0) rmdirSync(latest);
    if (changed.length > 0) {
      // Said here and in the exit status: vitest prints an error thrown by a teardown, then exits 0.
      process.stderr.write(
        `\nvapc tests: FAILED: the tests changed files a person keeps in the checkout (a test must write under a temporary directory):\n  ${changed.join('\n  ')}\n`,
      );
      process.exitCode = 1;
    }
  };
}
