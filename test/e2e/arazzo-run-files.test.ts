// `vapc run --arazzo FILE` (issue 36 point 2), in-process: every bad workflow file is one line and
// exit 2 before any request; a criterion that does not hold is a failure of kind `criterion` located
// in the answer, with the repro line that replays the workflow (its file, check and seed) and no
// secret; the onSuccess/onFailure actions are followed (retry capped, goto, end) and counted in
// report.json's `workflows`; a loop of gotos stops, never green.
import { mkdtemp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands/run.js';
import { runChecksOf } from '../../src/cli/run/workflows.js';
import type { RunSettings } from '../../src/config/settings.js';
import { loadSpec } from '../../src/spec/load.js';
import { checks } from '../../suites/index.js';
import { main } from '../../src/cli/main.js';
import { isVapcError } from '../../src/errors.js';
import type { RunReport } from '../../src/results/model.js';
import { reportValidator } from '../../src/reporters/report-schema.js';
import { replayCommand } from '../../src/reporters/text.js';
import { startReferenceServer } from '../../src/server/index.js';
import { captureIo } from '../helpers/captured-io.js';
import { loopbackServers } from '../helpers/loopback-runs.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vapc-arazzo-run-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const HEAD = `arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions:
  - {name: contract, url: ./openapi.yaml, type: openapi}
`;
const workflow = (steps: string, id = 'w', inputs = '') =>
  `${HEAD}workflows:\n  - workflowId: ${id}\n${inputs}    steps:\n${steps}`;
const STEP = `      - stepId: me\n        operationId: getCurrentUser\n`;

/** A directory of its own holding one file. */
async function written(name: string, text: string): Promise<string> {
  const own = await mkdtemp(join(dir, 'own-'));
  await writeFile(join(own, name), text);
  return own;
}

/** `vapc run --embedded --arazzo FILE` in `dir`: the error it stops with (code and message), or 'ran'. */
async function refusal(name: string, text?: string): Promise<{ code: string; message: string } | 'ran'> {
  if (text !== undefined) await writeFile(join(dir, name), text);
  try {
    await runCommand(
      { embedded: true, config: false, arazzo: [name], reportDir: join(dir, 'reports'), suite: 'workflows' },
      captureIo(),
      { cwd: dir },
    );
  } catch (error) {
    if (isVapcError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  return 'ran';
}

describe('a bad workflow file is one line and exit 2, before any request', () => {
  const cases: Array<[string, string | undefined, RegExp]> = [
    ['missing.yaml', undefined, /^workflow file missing\.yaml: .*no such file/],
    ['not-yaml.yaml', 'a: [1\n', /^workflow file not-yaml\.yaml: not valid YAML/],
    [
      'openapi.yaml',
      'openapi: 3.1.0\ninfo: {title: t, version: "1"}\npaths: {}\n',
      /vapc reads Arazzo 1\.0\.x documents/,
    ],
    ['v11.yaml', workflow(STEP).replace('1.0.1', '1.1.0'), /version "?1\.1\.0"?: vapc reads Arazzo 1\.0\.x/],
    [
      'unknown-op.yaml',
      workflow(STEP.replace('getCurrentUser', 'deleteEverything')),
      /operationId "?deleteEverything"? is not an operation of the contract/,
    ],
    ['unsafe-id.yaml', workflow(STEP, "'a b;rm'"), /workflowId "?a b;rm"? is not an id vapc can name a check by/],
    [
      'unknown-step.yaml',
      workflow(`${STEP}        parameters:\n          - {name: limit, in: query, value: $steps.nope.outputs.id}\n`),
      /\$steps\.nope names no step of the workflow/,
    ],
    [
      'unknown-input.yaml',
      workflow(`${STEP}        parameters:\n          - {name: limit, in: query, value: $inputs.nope}\n`),
      /\$inputs\.nope names no input of the workflow/,
    ],
    [
      'ref.yaml',
      workflow(`${STEP}        parameters:\n          - $ref: './elsewhere.yaml'\n`),
      /a \$ref is not read by vapc/,
    ],
    [
      'redos.yaml',
      workflow(
        `${STEP}        successCriteria:\n          - {context: $response.body, type: regex, condition: '^(a+)+$'}\n`,
      ),
      /a regex criterion with a quantified group of a quantifier \(such as \(a\+\)\+\) is refused/,
    ],
    ['big.yaml', `${workflow(STEP)}# ${'x'.repeat(1024 * 1024)}\n`, /^workflow file big\.yaml: refused: .*1048576/],
  ];
  for (const [name, text, why] of cases)
    it(name, async () => {
      const got = await refusal(name, text);
      expect(got).not.toBe('ran');
      const { code, message } = got as { code: string; message: string };
      expect(code).toBe('E_WORKFLOW');
      expect(message).toMatch(why);
      expect(message).not.toMatch(/\n/);
    });

  it('a file outside the working directory (through a symlink) is refused', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'vapc-arazzo-outside-'));
    try {
      await writeFile(join(outside, 'w.yaml'), workflow(STEP));
      await symlink(join(outside, 'w.yaml'), join(dir, 'link.yaml'));
      const got = (await refusal('link.yaml')) as { code: string; message: string };
      expect(got.code).toBe('E_WORKFLOW');
      expect(got.message).toMatch(/^workflow file link\.yaml: /);
      expect(got.message).toMatch(/outside|inside/);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("breaking Redocly's Arazzo rules (what only the linter sees: a misspelt successCriteria, which would judge nothing) is refused naming the rule", async () => {
    // The first rule Redocly reports is named, with its pointer and line.
    const text = workflow(`${STEP}        sucessCriteria:\n          - {condition: '$statusCode == 299'}\n`);
    const got = (await refusal('lint.yaml', text)) as { code: string; message: string };
    expect(got.code).toBe('E_WORKFLOW');
    expect(got.message).toMatch(
      /^workflow file lint\.yaml: breaks Redocly's Arazzo rules \(\d+ error\(s\)\); first: struct at #\/workflows\/0\/steps\/0\/sucessCriteria \(line \d+\): Property `sucessCriteria` is not expected here/,
    );
  });

  it('through the CLI: exit 2 and one line on stderr (a file that is no Arazzo document)', async () => {
    const io = captureIo();
    const status = await main(
      ['run', '--embedded', '--no-config', '--report-dir', join(dir, 'r'), '--arazzo', 'package.json'],
      io,
    );
    expect(status).toBe(2);
    expect(io.err().trim().split('\n')).toHaveLength(1);
    expect(io.err()).toMatch(/^vapc: workflow file package\.json: arazzo: version .*\[E_WORKFLOW\]/);
  });

  it('--suite without workflows runs no workflow: the files are not even read', async () => {
    const spec = await loadSpec();
    const settings = { suites: ['auth'], arazzo: ['missing.yaml'] } as unknown as RunSettings;
    const got = await runChecksOf(settings, { cwd: dir, spec, registry: checks, seed: 1 });
    expect(got.checks).toBe(checks);
    expect(got.coverage).toBeUndefined();
    const all = await runChecksOf({ arazzo: ['w.yaml'] } as unknown as RunSettings, {
      cwd: await written('w.yaml', workflow(STEP)),
      spec,
      registry: checks,
      seed: 1,
    });
    expect(all.checks.map((c) => c.id).slice(-1)).toEqual(['workflows.w']);
    expect(all.coverage).toBeDefined();
  });

  it('--suite workflows without --arazzo is a usage error', async () => {
    await expect(
      runCommand({ embedded: true, config: false, suite: 'workflows' }, captureIo(), { cwd: dir }),
    ).rejects.toThrow(/--suite workflows runs the workflows of --arazzo FILE/);
  });
});

const ACTIONS = `${HEAD}workflows:
  - workflowId: criterion-fails
    steps:
      - stepId: me
        operationId: getCurrentUser
        successCriteria:
          - condition: $statusCode == 200
          - condition: $response.body#/default_org_id == 'not-this-org'
  - workflowId: retries
    steps:
      - stepId: calls
        operationId: listCalls
        successCriteria:
          - condition: $statusCode == 299
        onFailure:
          - {name: again, type: retry, retryAfter: 0, retryLimit: 2}
  - workflowId: goto-recovers
    steps:
      - stepId: calls
        operationId: listCalls
        successCriteria:
          - condition: $statusCode == 299
        onFailure:
          - {name: to-me, type: goto, stepId: me}
      - stepId: never
        operationId: getHealth
      - stepId: me
        operationId: getCurrentUser
        successCriteria:
          - condition: $statusCode == 200
        onSuccess:
          - {name: done, type: end}
      - stepId: after-end
        operationId: getHealth
  - workflowId: loops
    steps:
      - stepId: calls
        operationId: listCalls
        onSuccess:
          - {name: again, type: goto, stepId: calls}
`;

describe('criteria and actions, against a server given by URL with credentials by flag', () => {
  const reference = loopbackServers(startReferenceServer);
  let run: { status: number; out: string; err: string; report: RunReport; files: string; key: string };
  beforeAll(async () => {
    const server = await reference();
    await mkdir(join(dir, 'act'), { recursive: true });
    await writeFile(join(dir, 'act', 'actions.arazzo.yaml'), ACTIONS);
    const io = captureIo();
    const f = server.fixtures;
    const status = await runCommand(
      {
        baseUrl: server.url,
        apiKey: f.api_key,
        userId: f.user_id,
        config: false,
        arazzo: ['actions.arazzo.yaml'],
        suite: 'workflows',
        seed: '9',
        reportDir: join(dir, 'act', 'reports'),
      },
      io,
      { cwd: join(dir, 'act') },
    );
    const read = (n: string) => readFile(join(dir, 'act', 'reports', n), 'utf8');
    const files = (await Promise.all(['report.json', 'junit.xml', 'report.html', 'report.sarif'].map(read))).join('\n');
    run = {
      status,
      out: io.out(),
      err: io.err(),
      report: JSON.parse(await read('report.json')),
      files,
      key: f.api_key,
    };
  }, 60_000);

  const result = (id: string) => run.report.results.find((r) => r.id === `workflows.${id}`)!;

  it('exits 1: a criterion did not hold', () => {
    expect(run.status).toBe(1);
  });

  it('a criterion that does not hold: kind criterion, located in the answer, its values in words', () => {
    const r = result('criterion-fails');
    expect(r.status).toBe('failed');
    const failure = r.failures![0]!;
    expect(failure.kind).toBe('criterion');
    expect(failure.field).toEqual({ location: 'response', pointer: '/default_org_id', status: '200' });
    expect(failure.actual).toMatch(/is false/);
    expect(r.message).toMatch(/^workflow criterion-fails, step me: the simple criterion/);
  });

  it('the repro line replays the workflow: the file, the check, the seed, the credentials as placeholders', () => {
    const repro = result('criterion-fails').repro!;
    expect(repro).toMatch(
      /^npx --no-install vapc run --base-url http:\/\/127\.0\.0\.1:\d+ --api-key "\$VAPC_API_KEY" --user-id "\$VAPC_USER_ID" --suite workflows --arazzo actions\.arazzo\.yaml --check workflows\.criterion-fails --seed 9$/,
    );
  });

  it('retry: the step is sent again up to retryLimit, then fails', () => {
    expect(result('retries').status).toBe('failed');
    const tally = run.report.workflows!.files[0]!.workflows.find((w) => w.id === 'retries')!;
    expect(tally.steps_run).toBe(3);
    expect(tally.actions).toEqual([{ step: 'calls', on: 'failure', name: 'again', type: 'retry', taken: 2 }]);
  });

  it('goto on failure and end on success: the branch is followed, the steps it skips are not sent, no failure', () => {
    expect(result('goto-recovers').status).toBe('passed');
    const tally = run.report.workflows!.files[0]!.workflows.find((w) => w.id === 'goto-recovers')!;
    expect(tally.steps_run).toBe(2);
    expect(tally.actions).toEqual([
      { step: 'calls', on: 'failure', name: 'to-me', type: 'goto', taken: 1 },
      { step: 'me', on: 'success', name: 'done', type: 'end', taken: 1 },
    ]);
  });

  it('a loop of gotos stops with its reason and is never green', () => {
    const r = result('loops');
    expect(r.status).toBe('skipped');
    expect(r.message).toMatch(/stopped after 100 step sends \(the workflow's gotos loop\)/);
  });

  it("report.json's workflows is valid against the artefact schema and adds up", () => {
    expect(reportValidator()(run.report)).toBe(true);
    const s = run.report.workflows!.summary;
    expect(s.criteria_evaluated).toBe(s.criteria_held + s.criteria_failed);
    expect(s.criteria_failed).toBeGreaterThan(0);
    expect(s.workflows).toBe(4);
  });

  it("the console says what the workflows ran, and the run's replay line names the file", () => {
    expect(run.out).toMatch(
      /^workflows: 4 of 1 file, 4 runs, \d+\/\d+ steps judged, \d+ criteria evaluated \(\d+ held, [1-9]\d* failed\), [1-9]\d* actions taken$/m,
    );
    expect(replayCommand(run.report)).toContain(' --suite workflows');
    expect(replayCommand(run.report)).toContain(' --arazzo actions.arazzo.yaml');
  });

  it('no secret in the console or any report', () => {
    expect(run.key.length).toBeGreaterThan(8);
    for (const text of [run.out, run.err, run.files]) expect(text).not.toContain(run.key);
  });
});
