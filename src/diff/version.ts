import type { Bump } from './rules.js';

export interface VersionVerdict {
  ok: boolean;
  /** One sentence for people. */
  message: string;
}

const parse = (v: string): [number, number, number] | undefined => {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/.exec(v.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
};

/** The bump from one version to the next: the first component that grew; `none` when equal, `lower` when it went back. */
export function bumpBetween(from: string, to: string): Bump | 'none' | 'lower' | 'invalid' {
  const a = parse(from);
  const b = parse(to);
  if (!a || !b) return 'invalid';
  for (const [i, name] of (['major', 'minor', 'patch'] as const).entries()) {
    if (b[i]! > a[i]!) return name;
    if (b[i]! < a[i]!) return 'lower';
  }
  return 'none';
}

const RANK = { none: 0, patch: 1, minor: 2, major: 3 } as const;

/** Does info.version move at least as far as semantic versioning requires for the changes found? */
export function checkVersion(from: string, to: string, required: Bump | 'none'): VersionVerdict {
  const moved = bumpBetween(from, to);
  if (moved === 'invalid')
    return { ok: false, message: `info.version ${from} -> ${to} is not semantic versioning (MAJOR.MINOR.PATCH)` };
  if (moved === 'lower') return { ok: false, message: `info.version went back from ${from} to ${to}` };
  if (RANK[moved] >= RANK[required]) {
    return {
      ok: true,
      message: `info.version ${from} -> ${to} is a ${moved} step; the changes need ${required === 'none' ? 'none' : `a ${required} bump`}`,
    };
  }
  return {
    ok: false,
    message: `info.version ${from} -> ${to} is ${moved === 'none' ? 'unchanged' : `a ${moved} step`}, but the changes need a ${required} bump`,
  };
}
