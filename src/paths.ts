import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: the nearest folder above this module whose package.json names this package. */
export const packageRoot: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      try {
        if (JSON.parse(readFileSync(candidate, 'utf8')).name === 'voice-agent-contract') return dir;
      } catch {
        // not ours; keep walking
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('voice-agent-contract: cannot find the package root');
    dir = parent;
  }
})();

export const paths = {
  specSource: join(packageRoot, 'spec', 'openapi.yaml'),
  redoclyConfig: join(packageRoot, 'redocly.yaml'),
  distDir: join(packageRoot, 'dist'),
  bundledYaml: join(packageRoot, 'dist', 'openapi.yaml'),
  bundledJson: join(packageRoot, 'dist', 'openapi.json'),
  docsHtml: join(packageRoot, 'dist', 'docs', 'index.html'),
} as const;

export function packageVersion(): string {
  return JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')).version as string;
}
