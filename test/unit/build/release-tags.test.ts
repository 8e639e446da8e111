/**
 * No page names a tag the repository lacks: an install line with `#v0.1.0` or `@v0.1.0` before
 * that tag exists stops a new user at "git reference could not be found". Every `vX.Y.Z` in the
 * install docs, the changelog, the Action and the workflows must be a tag of this repository
 * (`vX.Y.Z` written with letters is a placeholder). Other version words stay out: the spec's own
 * versions in docs/diff.md's examples, SARIF's schema URL. CI fetches the tags (`fetch-depth: 0`).
 * Also: the validators' README, which ships alone inside its tarball, links to no repository file.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../../src/paths.js';

/** The tags this checkout knows (none in a checkout without tags, e.g. a shallow CI clone). */
function tags(): Set<string> {
  const out = execFileSync('git', ['tag', '--list'], { cwd: packageRoot, encoding: 'utf8' });
  return new Set(out.split('\n').filter(Boolean));
}

/** The release tags a text names: `v` and three numbers, wherever they stand. */
export function namedTags(text: string): string[] {
  return [...new Set([...text.matchAll(/(?<![\w.-])v\d+\.\d+\.\d+(?![\w.-]*\d)/g)].map((m) => m[0]))];
}

/** Pages and files that tell a person what to install or use, and what the releases are. */
const files = [
  'README.md',
  'CHANGELOG.md',
  'action.yml',
  join('packages', 'validators', 'README.md'),
  ...readdirSync(join(packageRoot, 'docs'))
    .filter((f) => f.endsWith('.md') && !['diff.md', 'sarif.md'].includes(f))
    .map((f) => join('docs', f)),
  ...readdirSync(join(packageRoot, '.github', 'workflows')).map((f) => join('.github', 'workflows', f)),
];

describe('the tag check itself', () => {
  it('finds a tag in an install line, an action reference and a release URL, and not a placeholder', () => {
    expect(namedTags('npm install -D "git+https://x/y.git#v0.1.0"')).toEqual(['v0.1.0']);
    expect(namedTags('uses: org/voice-agent-contract@v1.2.3 # pin')).toEqual(['v1.2.3']);
    expect(namedTags('/releases/download/v0.1.0/voice-agent-contract-0.1.0.tgz')).toEqual(['v0.1.0']);
    expect(namedTags('pin `#vX.Y.Z`; node 20.19.0; sarif-v2.1.0.html')).toEqual([]);
  });
});

describe('no page names a tag the repository lacks', () => {
  const known = tags();
  it.each(files)('%s', (file) => {
    const missing = namedTags(readFileSync(join(packageRoot, file), 'utf8')).filter((t) => !known.has(t));
    expect(
      missing,
      `${file} names ${missing.join(', ')}; \`git tag\` lists ${[...known].join(', ') || 'none'} (fetch the tags: git fetch --tags)`,
    ).toEqual([]);
  });
});

describe("packages/validators/README.md (it ships alone in the validators' tarball)", () => {
  it('links to no file of the repository', () => {
    const text = readFileSync(join(packageRoot, 'packages', 'validators', 'README.md'), 'utf8');
    const relativeLinks = [...text.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
    expect(relativeLinks).toEqual([]);
  });
});
