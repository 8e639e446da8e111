// A consumer installs the package from a git URL and imports the validators (npm run check:git-install).
// The git URL is this checkout's committed HEAD (git+file://, no network but the npm registry or
// its cache): npm clones it, installs its devDependencies, runs `prepare` (the build) and packs
// it. Fails when the install warns EBADENGINE, when dist/ is missing or when the import fails.
// Takes minutes (a full build inside the clone), so it is a manual check, not part of npm test.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const fail = (message) => {
  process.stderr.write(`check-git-install: FAILED: ${message}\n`);
  process.exit(1);
};
const git = (...args) => spawnSync('git', args, { encoding: 'utf8' }).stdout.trim();

const root = git('rev-parse', '--show-toplevel');
const commit = git('rev-parse', 'HEAD');
if (!root || !commit) fail('not inside a git checkout');
if (git('status', '--porcelain', '--untracked-files=no')) process.stderr.write('check-git-install: note: uncommitted changes are not part of the install (HEAD is)\n');

const work = mkdtempSync(join(tmpdir(), 'vapc-git-install-'));
try {
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }));
  const url = `git+file://${root}#${commit}`;
  process.stderr.write(`check-git-install: npm install ${url} (in ${work})\n`);
  const install = spawnSync(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', url], { cwd: work, encoding: 'utf8' });
  const output = `${install.stdout}${install.stderr}`;
  if (install.status !== 0) fail(`npm install exited ${install.status}:\n${output}`);
  if (/EBADENGINE/.test(output)) fail(`the install warned EBADENGINE:\n${output}`);
  if (!existsSync(join(work, 'node_modules', 'voice-agent-contract', 'dist', 'src', 'index.js'))) fail('the installed package has no dist/src/index.js (prepare did not build)');
  const script = [
    "import { validate, validateRequest } from 'voice-agent-contract';",
    "import spec from 'voice-agent-contract/spec' with { type: 'json' };",
    "const bad = validate('CampaignCreate', { max_concurrency: 201 });",
    "const ok = validateRequest('listCalls', { query: { limit: '5' }, headers: {}, body: undefined });",
    "if (bad.ok || bad.issues[0].rule !== 'maximum' || !ok.ok || !spec.openapi) { console.error(JSON.stringify({ bad, ok })); process.exit(1); }",
    "console.log(`imported: validate -> ${bad.issues[0].message}; spec ${spec.info.version}`);",
  ].join('\n');
  const use = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: work, encoding: 'utf8' });
  if (use.status !== 0) fail(`importing the validators failed:\n${use.stdout}${use.stderr}`);
  process.stdout.write(`check-git-install: OK: installed from ${url} without EBADENGINE; ${use.stdout}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
