import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Installs Debian's chromium if missing (scripts/ensure-chromium.sh), then launches it headless
 * (playwright-core gives it a new empty profile). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    execFileSync('bash', [join(process.cwd(), 'scripts', 'ensure-chromium.sh')], {
      stdio: 'inherit',
      timeout: 600_000,
    });
  }
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
