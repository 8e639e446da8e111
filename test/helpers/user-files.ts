/**
 * What a person keeps in the checkout and the tests must leave alone: the reports `npm start` and
 * their own runs wrote (`reports/`, `reports/latest/` by default) and files git does not ignore
 * (a `vapc.yaml`, a baseline: a new one is an untracked file; tracked files are left out, for a
 * developer may be editing them during the run). The global setup (test/helpers/global-setup.ts) takes a
 * snapshot before the first test and compares after the last: a test that writes there fails the
 * run, naming the paths.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Path (relative to the checkout) -> what identifies its content without reading it. */
export type Snapshot = Map<string, string>;

function walk(root: string, dir: string, out: Snapshot): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(root, path, out);
    else {
      const s = statSync(path, { throwIfNoEntry: false });
      if (s) out.set(relative(root, path), `${s.size} ${s.mtimeMs}`);
    }
  }
}

/** The files git neither tracks nor ignores, as `status --porcelain` lines (none outside a git checkout). */
function untracked(root: string): string[] {
  try {
    return execFileSync('git', ['status', '--porcelain=v1', '--untracked-files=all'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .split('\n')
      .filter((line) => line.startsWith('??'));
  } catch {
    return [];
  }
}

/** Every file under `reports/` with its size and modification time, and the untracked files. */
export function snapshotUserFiles(root: string): Snapshot {
  const out: Snapshot = new Map();
  walk(root, join(root, 'reports'), out);
  for (const line of untracked(root)) out.set(`${line.slice(3)} (untracked)`, '');
  return out;
}

/** What differs between two snapshots, one line each (`reports/latest/report.json changed`). */
export function changedUserFiles(before: Snapshot, after: Snapshot): string[] {
  const lines: string[] = [];
  for (const [path, id] of after) {
    if (!before.has(path)) lines.push(`${path} added`);
    else if (before.get(path) !== id) lines.push(`${path} changed`);
  }
  for (const path of before.keys()) if (!after.has(path)) lines.push(`${path} removed`);
  return lines.sort();
}
