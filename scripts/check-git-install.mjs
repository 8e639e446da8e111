// A consumer installs the toolkit from a git URL, as docs/setup.md tells teams to before a release
// exists (`npm run check:git-install`; .ci/run runs it). A temporary clone of this checkout's
// committed HEAD; an empty project outside the checkout depends on `git+file://<clone>#<commit>`
// and runs `npm ci --offline`: npm clones the commit, installs its devDependencies, runs `prepare`
// (the build) and packs it. The project's lockfile is made from this repository's
// (test/helpers/packed.ts), so every tarball comes from the npm cache and nothing from the network.
// Then `npx --no-install vapc --version`, a `vapc run --embedded --suite cors` and an import of the
// validators. Fails on EBADENGINE, a missing dist/ or any of those failing. Then the same install
// with install scripts off (`--ignore-scripts`, a common policy): npm installs the package without
// its build, and vapc must say so and name the two ways out (exit 2), not "run npm run build".
// About a minute (the build inside the clone), so it is not part of npm test. Runs with tsx.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeConsumerProject } from './consumer-project.mjs';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const env = {
  ...process.env,
  npm_config_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};
const say = (text) => process.stderr.write(`check-git-install: ${text}\n`);
const fail = (message) => {
  say(`FAILED: ${message}`);
  process.exitCode = 1;
  throw new Error(message);
};
const sh = (command, args, cwd) => {
  const r = spawnSync(command, args, { cwd, env, encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}`, stdout: r.stdout ?? '' };
};
const git = (args, cwd) => sh('git', args, cwd).stdout.trim();

const root = git(['rev-parse', '--show-toplevel'], process.cwd());
if (!root) fail('not inside a git checkout');
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
if (git(['status', '--porcelain', '--untracked-files=no'], root))
  say('note: uncommitted changes are not part of the install (HEAD is)');

const work = mkdtempSync(join(tmpdir(), 'vapc-git-install-'));
try {
  const repo = join(work, 'repo');
  if (sh('git', ['clone', '-q', '--no-local', root, repo], work).status !== 0) fail('git clone of the checkout failed');
  const commit = git(['rev-parse', 'HEAD'], repo);
  const app = join(work, 'app');
  const url = `git+file://${repo}#${commit}`;
  writeConsumerProject(app, url, { lockfile: join(root, 'package-lock.json') });
  say(`npm ci --offline of ${url} (in ${app})`);
  let started = Date.now();
  const install = sh(npm, ['ci'], app);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (install.status !== 0) fail(`npm ci exited ${install.status}:\n${install.out}`);
  if (/EBADENGINE/.test(install.out)) fail(`the install warned EBADENGINE:\n${install.out}`);
  if (!existsSync(join(app, 'node_modules', 'voice-agent-contract', 'dist', 'src', 'index.js')))
    fail('the installed package has no dist/src/index.js (prepare did not build)');
  const v = sh(npx, ['--no-install', 'vapc', '--version'], app);
  if (v.status !== 0 || v.stdout.trim() !== version)
    fail(`npx --no-install vapc --version: exit ${v.status}, ${v.out.trim()}`);
  started = Date.now();
  const run = sh(
    npx,
    [
      '--no-install',
      'vapc',
      'run',
      '--embedded',
      '--suite',
      'cors',
      '--seed',
      '1',
      '--quiet',
      '--report-dir',
      'reports',
    ],
    app,
  );
  if (run.status !== 0) fail(`vapc run --embedded --suite cors exited ${run.status}:\n${run.out}`);
  const script = [
    "import { validate, validateRequest } from 'voice-agent-contract';",
    "import spec from 'voice-agent-contract/spec' with { type: 'json' };",
    "const bad = validate('CampaignCreate', { max_concurrency: 201 });",
    "const ok = validateRequest('listCalls', { query: { limit: '5' } });",
    "if (bad.ok || bad.issues[0].rule !== 'maximum' || !ok.ok || !spec.openapi) { console.error(JSON.stringify({ bad, ok })); process.exit(1); }",
    'console.log(`validate -> ${bad.issues[0].message}; spec ${spec.info.version}`);',
  ].join('\n');
  const use = sh(process.execPath, ['--input-type=module', '-e', script], app);
  if (use.status !== 0) fail(`importing the validators failed:\n${use.out}`);
  const off = join(work, 'scripts-off');
  writeConsumerProject(off, url, { lockfile: join(root, 'package-lock.json') });
  say(`npm ci --offline --ignore-scripts of ${url} (in ${off})`);
  const offInstall = sh(npm, ['ci', '--ignore-scripts'], off);
  if (offInstall.status !== 0) fail(`npm ci --ignore-scripts exited ${offInstall.status}:\n${offInstall.out}`);
  const offRun = sh(npx, ['--no-install', 'vapc', '--version'], off);
  if (offRun.status !== 2 || !/install scripts are off/.test(offRun.out) || !/release tarball/.test(offRun.out))
    fail(`with scripts off, vapc --version: exit ${offRun.status}, ${offRun.out.trim()}`);
  process.stdout.write(
    `check-git-install: OK: ${url} installed offline in ${seconds} s (clone, devDependencies, prepare); vapc ${version}; vapc run --suite cors passed; ${use.stdout.trim()}; ` +
      `with --ignore-scripts: exit 2, "${offRun.out.trim().slice(0, 90)}..."\n`,
  );
} catch (e) {
  if (!process.exitCode) {
    say(`FAILED: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
