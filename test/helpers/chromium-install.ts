/**
 * The one install of Debian's chromium for the browser tests: started by the global setup
 * (helpers/global-setup.ts) in the background, waited for by helpers/chromium.ts. No vitest import:
 * the global setup runs in vitest's main process.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const ENSURE_CHROMIUM = join(packageRoot, 'scripts', 'ensure-chromium.sh');

/** An install under way: its log, and the file holding its exit status once it has ended. */
export interface ChromiumInstall {
  log: string;
  done: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The install the global setup started, or null when it started none (chromium was there). */
    chromiumInstall: ChromiumInstall | null;
  }
}

/** Starts scripts/ensure-chromium.sh in the background; `ended` resolves once `done` holds its status. */
export function startChromiumInstall(): { files: ChromiumInstall; ended: Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'vapc-chromium-'));
  const files = { log: join(dir, 'install.log'), done: join(dir, 'status') };
  const log = openSync(files.log, 'a');
  const child = spawn('bash', [ENSURE_CHROMIUM], { stdio: ['ignore', log, log] });
  const ended = new Promise<void>((resolve) => {
    const finish = (status: number) => {
      closeSync(log);
      writeFileSync(files.done, String(status));
      resolve();
    };
    child.once('error', () => finish(127));
    child.once('close', (code) => finish(code ?? 1));
  });
  return { files, ended };
}
