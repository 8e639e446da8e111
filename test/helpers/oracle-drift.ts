// `vapc drift` as a judge of the one oracle (issue 35, point 4; test/helpers/oracle.ts): every case
// of the corpus becomes one line of an NDJSON recording, answered by a 500 that carries the case's
// index in a header; `vapc drift` (the command, in-process) judges the whole recording once with the
// suites' registry and one more passive check, a probe that notes for each exchange the operation
// drift matched it to and what drift's view of the request (the wire validator every passive judge
// of drift asks, ctx.validateWire) says of it. The probe's notes are drift's verdict on each case;
// the report of the same run holds what the suites' own judges made of the 500s.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineCheck } from '../../src/checks/check.js';
import { driftCommand } from '../../src/cli/commands/drift.js';
import type { RunReport } from '../../src/results/model.js';
import { checks as registry } from '../../suites/index.js';
import type { OracleCase, RequestJudge, RequestVerdict } from './oracle.js';
import { capturedIo, tempDir } from './traffic.js';

/** The response header that carries a case's index into the recording. */
const CASE_HEADER = 'x-oracle-case';

/** The recording of the corpus: each case's request as sent, answered by a 500. */
export function oracleRecording(cases: readonly OracleCase[]): string {
  return cases
    .map((c, i) =>
      JSON.stringify({
        request: { method: c.request.method, url: c.request.url, headers: c.request.headers, body: c.request.body },
        response: {
          status: 500,
          headers: { 'content-type': 'application/json', [CASE_HEADER]: String(i) },
          body: '{"detail":"oracle"}',
        },
      }),
    )
    .join('\n');
}

export interface DriftOracle extends RequestJudge {
  /** The report of the drift run (the suites' judges on the same recording). */
  report: RunReport;
  /** Drift's exit status. */
  code: number;
  /** Lines drift wrote to stderr. */
  err: string;
}

/** Runs `vapc drift` once over the corpus (extra flags: e.g. a --base-path) and answers per case from its notes. */
export async function driftOracle(
  cases: readonly OracleCase[],
  flags: Record<string, string> = {},
): Promise<DriftOracle> {
  const dir = tempDir('vapc-oracle-drift-');
  const file = join(dir, 'oracle.ndjson');
  writeFileSync(file, oracleRecording(cases));
  const notes = new Map<number, { operationId: string; valid: boolean }>();
  const probe = defineCheck({
    id: 'oracle.request-view',
    suite: 'oracle',
    rule: "notes drift's view of each recorded request (a test probe: never fails)",
    contractRef: '-',
    severity: 'minor',
    appliesTo: () => true,
    run: () => Promise.reject(new Error('a probe of recorded traffic never runs')),
    judgeExchange(ctx, op, exchange) {
      const index = Number(exchange.response?.headers[CASE_HEADER]);
      notes.set(index, { operationId: op.id, valid: ctx.validateWire(op, exchange).valid });
      return undefined;
    },
  });
  const { io, err } = capturedIo();
  const reportDir = join(dir, 'report');
  const code = await driftCommand(file, { reportDir, quiet: true, ...flags }, io, { checks: [...registry, probe] });
  const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as RunReport;
  const indexOf = new Map(cases.map((c, i) => [c, i]));
  return {
    name: 'vapc drift',
    report,
    code,
    err: err(),
    judge(c): RequestVerdict {
      const note = notes.get(indexOf.get(c)!);
      if (!note) return { valid: false, other: 'vapc drift did not judge the recorded request' };
      if (note.operationId !== c.operationId)
        return { valid: note.valid, other: `drift matched it to ${note.operationId}` };
      return { valid: note.valid };
    },
  };
}
