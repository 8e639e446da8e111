/**
 * What the global setup (test/helpers/global-setup.ts) promises a person who runs `npm test` in
 * the checkout they work in: the reports of their own runs survive it, and a test that would bind
 * vapc serve's default port fails the run instead of only failing beside a running `vapc serve`.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SERVE_PORT } from './helpers/global-setup.js';
import { changedUserFiles, snapshotUserFiles } from './helpers/user-files.js';

describe('the checkout guard', () => {
  it('names a report rewritten, added or removed under reports/, and nothing when none was', () => {
    const root = mkdtempSync(join(tmpdir(), 'vapc-guard-'));
    mkdirSync(join(root, 'reports', 'latest'), { recursive: true });
    writeFileSync(join(root, 'reports', 'latest', 'report.json'), '{"run":{"status":"complete"}}');
    writeFileSync(join(root, 'reports', 'latest', 'report.sarif'), '{}');
    const before = snapshotUserFiles(root);
    expect(changedUserFiles(before, snapshotUserFiles(root))).toEqual([]);

    // Same size, a later write: what an aborted run's report of equal length would look like.
    writeFileSync(join(root, 'reports', 'latest', 'report.json'), '{"run":{"status":"aborted!"}}');
    utimesSync(join(root, 'reports', 'latest', 'report.json'), new Date(), new Date(Date.now() + 5000));
    rmSync(join(root, 'reports', 'latest', 'report.sarif'));
    writeFileSync(join(root, 'reports', 'latest', 'junit.xml'), '<testsuites/>');
    expect(changedUserFiles(before, snapshotUserFiles(root))).toEqual([
      join('reports', 'latest', 'junit.xml') + ' added',
      join('reports', 'latest', 'report.json') + ' changed',
      join('reports', 'latest', 'report.sarif') + ' removed',
    ]);
    rmSync(root, { recursive: true, force: true });
  });
});

describe("vapc serve's default port during the run", () => {
  it('is taken, so a test that binds it fails on every run', async () => {
    const bind = () =>
      new Promise<NodeJS.ErrnoException | undefined>((done) => {
        const server = createServer();
        server.once('error', done);
        server.listen(DEFAULT_SERVE_PORT, '127.0.0.1', () => server.close(() => done(undefined)));
      });
    // Another test run on the machine may have held it when this one started and let it go since:
    // the setup takes it over within 100 ms, so a second try a second later finds it taken.
    let error = await bind();
    if (error === undefined) {
      await new Promise((r) => setTimeout(r, 1000));
      error = await bind();
    }
    expect(error?.code).toBe('EADDRINUSE');
  });
});
