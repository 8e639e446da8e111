import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { startHostileServer, type Behaviour } from './servers.js';

/**
 * `vapc run --base-url` against servers that misbehave: each run ends (the test's own timeout is
 * the bound) with exit 2 and a clear message when nothing usable answers, or exit 1 with failed
 * checks when the server answers wrongly; never a stack trace, never an unbounded body in memory.
 */
const STACK = /\n\s+at .+:\d+:\d+/;
const dir = mkdtempSync(join(tmpdir(), 'vapc-hostile-'));

const expectations: Array<{ behaviour: Behaviour; exit: 1 | 2; message: RegExp }> = [
  { behaviour: 'hang', exit: 2, message: /cannot reach .*no complete response within 300 ms/ },
  { behaviour: 'reset', exit: 2, message: /cannot reach .*connection closed by the server/ },
  { behaviour: 'drip', exit: 2, message: /cannot reach .*no complete response within 300 ms/ },
  { behaviour: 'invalid-json', exit: 1, message: /FAIL|failed/ },
  { behaviour: 'huge-body', exit: 1, message: /FAIL|failed/ },
  { behaviour: 'html-500', exit: 1, message: /FAIL|failed/ },
  { behaviour: 'redirect-loop', exit: 1, message: /FAIL|failed/ },
  { behaviour: 'stall-after-discovery', exit: 2, message: /the run stopped early: the target stopped answering/ },
  { behaviour: 'deep-json', exit: 1, message: /FAIL|failed/ },
];

// The servers that answer at all get a request timeout a loaded machine cannot reach (a 300 ms one
// failed an honest request there, and the run then held an error): only the runs meant to end on
// the timeout use 300 ms.
describe('hostile servers', () => {
  for (const { behaviour, exit, message } of expectations) {
    it(
      `a server that answers "${behaviour}" ends with exit ${exit} and a clear message`,
      { timeout: 180_000 },
      async () => {
        const server = await startHostileServer(behaviour);
        let out = '';
        let err = '';
        const reportDir = join(dir, behaviour);
        global.gc?.();
        const rssBefore = process.memoryUsage().rss;
        try {
          const code = await main(
            [
              'run',
              '--base-url',
              server.url,
              '--timeout-ms',
              exit === 2 ? '300' : '3000',
              '--seed',
              '11',
              '--quiet',
              '--report-dir',
              reportDir,
            ],
            {
              stdout: (t) => void (out += t),
              stderr: (t) => void (err += t),
              env: { NO_COLOR: '1' },
              isTTY: false,
            },
          );
          expect(code).toBe(exit);
          expect(exit === 2 ? err : out).toMatch(message);
          expect(out + err).not.toMatch(STACK);
          expect(out + err).not.toMatch(/internal error/);
          if (exit === 1) {
            const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8'));
            expect(report.summary.failed).toBeGreaterThan(0);
            expect(report.summary.errors).toBe(0);
            // Bodies in the report are capped: a 64 MiB answer never lands in it.
            expect(readFileSync(join(reportDir, 'report.json'), 'utf8').length).toBeLessThan(8 * 1024 * 1024);
            // A pathological body is reported as such, not parsed.
            if (behaviour === 'deep-json')
              expect(readFileSync(join(reportDir, 'report.json'), 'utf8')).toContain('nested deeper than 64 levels');
          }
        } finally {
          await server.close();
        }
        // Memory stays bounded: each huge body is cut at 1 MiB and dropped.
        expect(process.memoryUsage().rss - rssBefore).toBeLessThan(300 * 1024 * 1024);
      },
    );
  }
});
