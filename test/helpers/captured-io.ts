import type { CliIo } from '../../src/cli/io.js';

/** Streams for a command run in-process, each captured apart (NO_COLOR, not a TTY). */
export function captureIo(env: Record<string, string> = {}): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    env: { NO_COLOR: '1', ...env },
    isTTY: false,
    out: () => out,
    err: () => err,
  };
}
