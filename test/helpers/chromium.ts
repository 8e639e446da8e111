import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { inject } from 'vitest';
import { CHROMIUM_PATH, ENSURE_CHROMIUM, type ChromiumInstall } from './chromium-install.js';

export { CHROMIUM_PATH };

/** Where the browser tests put their screenshots (their artefacts): outside the checkout's reports/. */
export const SCREENSHOTS = join(tmpdir(), 'vapc-test-screenshots');
/**
 * How long a browser test file's beforeAll may take: on a fresh machine it waits for the one
 * install of chromium (apt-get update and install, about 2 minutes on a busy 2-core machine).
 */
export const CHROMIUM_SETUP_MS = 15 * 60_000;

/** The last line of what the installer printed, to say why it failed. */
function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines[lines.length - 1] ?? 'it printed nothing';
}

/** Waits for the global setup's install to end; its exit status and last line. */
async function waitForInstall(install: ChromiumInstall): Promise<{ status: number; why: string }> {
  while (!existsSync(install.done)) await sleep(1000);
  const status = Number(readFileSync(install.done, 'utf8').trim());
  return { status, why: lastLine(existsSync(install.log) ? readFileSync(install.log, 'utf8') : '') };
}

/** Runs scripts/ensure-chromium.sh here (it waits for any install already under way on the machine). */
async function runInstall(): Promise<{ status: number; why: string }> {
  try {
    await promisify(execFile)('bash', [ENSURE_CHROMIUM], { timeout: CHROMIUM_SETUP_MS - 60_000 });
    return { status: 0, why: '' };
  } catch (e) {
    const err = e as { code?: number; stderr?: string; stdout?: string; message: string };
    return {
      status: typeof err.code === 'number' ? err.code : 1,
      why: lastLine(`${err.stdout ?? ''}\n${err.stderr ?? ''}`) || err.message,
    };
  }
}

/**
 * Chromium at /usr/bin/chromium, or one sentence saying why there is none: waits for the install
 * the global setup started, or runs scripts/ensure-chromium.sh itself when there was none (a
 * chromium removed during the run). Never installs twice at once.
 */
async function ensureChromium(): Promise<void> {
  if (existsSync(CHROMIUM_PATH)) return;
  const started = inject('chromiumInstall');
  const { status, why } = started ? await waitForInstall(started) : await runInstall();
  if (status === 0 && existsSync(CHROMIUM_PATH)) return;
  throw new Error(
    `the browser tests need Debian's chromium at ${CHROMIUM_PATH}, and it could not be installed ` +
      `(scripts/ensure-chromium.sh exited ${status}: ${why}); install it as root (apt-get install chromium) and run the tests again`,
  );
}

/** Installs Debian's chromium if missing (once: see ensureChromium), then launches it headless
 * (playwright-core gives it a new empty profile). Call it in a beforeAll given CHROMIUM_SETUP_MS. */
export async function launchChromium(): Promise<Browser> {
  await ensureChromium();
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
