/**
 * The Action's install (scripts/action-install.mjs, action.yml's "Key", "Restore" and "Install vapc"
 * steps): the cache key follows the action's files and nothing its build writes; the install holds
 * the packed tool and its runtime dependencies only (no devDependency, no script run), from a given
 * tarball or from the release of the tag the action is used at (over loopback here, standing in for
 * GitHub's release downloads), whose checksum must match its SHA256SUMS; scripts/action.mjs runs
 * the installed vapc. npm runs offline, from the cache `npm ci` of this repository filled.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot, packageVersion } from '../../src/paths.js';
import { startReferenceServer, type ReferenceServer } from '../../src/server/index.js';
import { runtimeEntries } from '../../scripts/consumer-project.mjs';
import { pack } from '../helpers/packed.js';

const SCRIPT = join(packageRoot, 'scripts', 'action-install.mjs');
const offline = {
  npm_config_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};

interface Ran {
  status: number;
  stdout: string;
  stderr: string;
}
async function node(args: string[], env: Record<string, string>): Promise<Ran> {
  try {
    const r = await promisify(execFile)(process.execPath, args, {
      env: { ...process.env, ...offline, ...env },
      timeout: 150_000,
      maxBuffer: 8 << 20,
    });
    return { status: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { status: typeof err.code === 'number' ? err.code : 1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

/** The top-level packages of a node_modules folder (`@scope/name` for scoped ones). */
function topLevel(modules: string): string[] {
  return readdirSync(modules)
    .filter((d) => !d.startsWith('.'))
    .flatMap((d) => (d.startsWith('@') ? readdirSync(join(modules, d)).map((n) => `${d}/${n}`) : [d]))
    .sort();
}

let work: string;
let tarball: string;
let server: ReferenceServer;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vapc-action-install-'));
  tarball = pack(work);
  server = await startReferenceServer({ host: '127.0.0.1', port: 0 });
}, 120_000);
afterAll(async () => {
  await server?.close();
});

describe('the cache key', () => {
  const key = async (actionPath: string) =>
    (await node([SCRIPT, 'key'], { VAPC_ACTION_PATH: actionPath, RUNNER_OS: 'Linux', RUNNER_ARCH: 'X64' })).stdout;

  it('is the same for the same files, ignores what builds and installs write, and changes with a source file', async () => {
    const action = join(work, 'action-copy');
    mkdirSync(join(action, 'src'), { recursive: true });
    writeFileSync(join(action, 'package-lock.json'), '{}');
    writeFileSync(join(action, 'src', 'a.ts'), 'export const a = 1;\n');
    const first = await key(action);
    expect(first).toMatch(
      new RegExp(`^key=vapc-tool-Linux-X64-node${process.versions.node.split('.')[0]}-[0-9a-f]{32}\\ndir=.+\\n$`),
    );
    expect(await key(action)).toBe(first);
    for (const built of ['node_modules', 'dist']) {
      mkdirSync(join(action, built), { recursive: true });
      writeFileSync(join(action, built, 'x.js'), String(Math.random()));
    }
    expect(await key(action)).toBe(first);
    writeFileSync(join(action, 'src', 'a.ts'), 'export const a = 2;\n');
    expect(await key(action)).not.toBe(first);
  });
});

describe('the install', () => {
  let toolDir: string;
  let installed: Ran;

  beforeAll(async () => {
    toolDir = join(work, 'tool');
    installed = await node([SCRIPT, 'install'], {
      VAPC_ACTION_PATH: packageRoot,
      VAPC_TOOL_TARBALL: tarball,
      VAPC_TOOL_DIR: toolDir,
    });
  }, 180_000);

  it('holds the packed tool (with dist/) and its runtime dependencies, nothing else', () => {
    expect(installed.status, installed.stderr).toBe(0);
    const modules = join(toolDir, 'node_modules');
    expect(existsSync(join(modules, 'voice-agent-contract', 'dist', 'cli', 'vapc.cjs'))).toBe(true);
    const entries = Object.keys(runtimeEntries(join(packageRoot, 'package-lock.json')));
    const runtime = entries
      .filter((p) => p.split('node_modules/').length === 2)
      .map((p) => p.slice('node_modules/'.length));
    expect(topLevel(modules)).toEqual(['voice-agent-contract', ...runtime].sort());
    for (const dev of ['typescript', 'vitest', 'esbuild', 'tsx', 'playwright-core'])
      expect(topLevel(modules)).not.toContain(dev);
    expect(installed.stderr).toContain(`with its runtime dependencies only (${entries.length + 1} packages)`);
  });

  /** The vapc step as GitHub runs it (scripts/action.mjs) with a tool folder; its result and $GITHUB_OUTPUT. */
  async function actionStep(tool: string, inputs: Record<string, string>): Promise<Ran & { output: string }> {
    const gh = mkdtempSync(join(tmpdir(), 'vapc-action-gh-'));
    const r = await node([join(packageRoot, 'scripts', 'action.mjs')], {
      GITHUB_ACTIONS: 'true',
      // The report directory lies inside the workspace, as the Action requires (a real runner's checkout).
      GITHUB_WORKSPACE: gh,
      GITHUB_OUTPUT: join(gh, 'output'),
      GITHUB_STEP_SUMMARY: join(gh, 'summary'),
      VAPC_TOOL_DIR: tool,
      INPUT_BASE_URL: server.url,
      INPUT_REPORT_DIR: join(gh, 'reports'),
      ...inputs,
    });
    return { ...r, output: readFileSync(join(gh, 'output'), 'utf8') };
  }

  it('is what scripts/action.mjs runs: a run against the reference server passes, outputs written', async () => {
    const r = await actionStep(toolDir, {
      INPUT_API_KEY: server.fixtures.api_key,
      INPUT_USER_ID: server.fixtures.user_id,
      INPUT_SUITES: 'cors',
      INPUT_SEED: '1',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.output).toMatch(/^exit-code=0$/m);
  });

  it('a tool folder without vapc is one line and exit 2, not a run of some other vapc', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'vapc-no-tool-'));
    const r = await actionStep(empty, {});
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      `vapc is not installed at ${join(empty, 'node_modules', 'voice-agent-contract', 'bin', 'vapc.js')}`,
    );
    expect(r.output).toMatch(/^exit-code=2$/m);
  });
});

describe('at a release tag: the release tarball, checked against SHA256SUMS', () => {
  let releases: Server;
  let base: string;
  const files = new Map<string, Buffer>();

  beforeAll(async () => {
    releases = createServer((req, res) => {
      const body = files.get(req.url ?? '');
      res.writeHead(body ? 200 : 404).end(body ?? 'Not Found');
    });
    await new Promise<void>((done) => releases.listen(0, '127.0.0.1', () => done()));
    base = `http://127.0.0.1:${(releases.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((done) => releases.close(() => done())));

  const release = (sums: string) => {
    const dir = `/org/voice-agent-contract/releases/download/v${packageVersion()}`;
    files.clear();
    files.set(`${dir}/${basename(tarball)}`, readFileSync(tarball));
    files.set(`${dir}/SHA256SUMS`, Buffer.from(sums));
  };
  const installAtTag = (toolDir: string) =>
    node([SCRIPT, 'install'], {
      VAPC_ACTION_PATH: packageRoot,
      VAPC_ACTION_REPOSITORY: 'org/voice-agent-contract',
      VAPC_ACTION_REF: `v${packageVersion()}`,
      GITHUB_SERVER_URL: base,
      VAPC_TOOL_DIR: toolDir,
    });

  it('installs the downloaded tarball when its checksum matches', async () => {
    const sum = createHash('sha256').update(readFileSync(tarball)).digest('hex');
    release(
      `${sum}  ${basename(tarball)}\n${'0'.repeat(64)}  voice-agent-contract-validators-${packageVersion()}.tgz\n`,
    );
    const toolDir = join(work, 'tool-release');
    const r = await installAtTag(toolDir);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`using the release tarball of org/voice-agent-contract@v${packageVersion()}`);
    expect(existsSync(join(toolDir, 'node_modules', 'voice-agent-contract', 'bin', 'vapc.js'))).toBe(true);
  }, 180_000);

  it('refuses a tarball whose checksum differs, and installs nothing', async () => {
    release(`${'a'.repeat(64)}  ${basename(tarball)}\n`);
    const toolDir = join(work, 'tool-tampered');
    const r = await installAtTag(toolDir);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/does not match the release's SHA256SUMS .*: not installed/);
    expect(existsSync(join(toolDir, 'node_modules'))).toBe(false);
  });
});
