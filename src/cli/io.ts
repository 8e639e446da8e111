/**
 * What every command shares: the exit statuses and the outside world a command may touch. Commands
 * import this, never `main.ts` (which imports the commands).
 */
import type { Writable } from 'node:stream';

/**
 * Exit statuses of vapc: 0 nothing failed (and the run judged enough), 1 a check (or lint) failed,
 * 2 usage/config/setup error, unreachable target, a fault of the tool, or a report that could not be
 * written, 3 inconclusive: nothing failed but the run judged too little to pass (docs/interface.md).
 */
export const ExitCode = { ok: 0, failed: 1, usage: 2, inconclusive: 3 } as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** What a command needs from the outside world; tests pass their own. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  isTTY: boolean;
}

/**
 * The codes of a stream whose reader went away (`vapc run | head`, a CI step that stopped reading):
 * nothing is left to tell, so the output stops without a word.
 */
const READER_GONE = new Set(['EPIPE', 'ECONNRESET', 'ERR_STREAM_DESTROYED']);

/**
 * A writer that stops, rather than crashes, once its stream fails. Node reports a failed write as
 * an 'error' event, which unheard ends the process with a stack trace before the run has written
 * its reports or set its exit status; heard, the command goes on as if its output had been read:
 * report files are written and the exit status is the one it earned (docs/running.md "Output").
 * A reader that closed is silence; any other failure (a full disk under `> file`) is one line
 * through `tell` (the other stream), for that output was not meant to be lost.
 */
export function failSafeWriter(stream: Writable, name: string, tell: (text: string) => void): (text: string) => void {
  let failed = false;
  const fail = (error: NodeJS.ErrnoException): void => {
    if (failed) return;
    failed = true;
    if (!READER_GONE.has(error.code ?? '')) {
      tell(`vapc: cannot write to ${name} (${error.code ?? error.message}); the rest of its output is dropped\n`);
    }
  };
  stream.on('error', fail);
  return (text) => {
    if (failed || stream.destroyed) return;
    try {
      stream.write(text);
    } catch (error) {
      fail(error as NodeJS.ErrnoException);
    }
  };
}

// One writer per process stream, made on first use: one 'error' listener each, however often
// processIo is called. stderr has no other stream to tell of its own failure.
let processWriters: { stdout: (text: string) => void; stderr: (text: string) => void } | undefined;
function processStreams(): NonNullable<typeof processWriters> {
  if (processWriters) return processWriters;
  const stderr = failSafeWriter(process.stderr, 'stderr', () => {});
  processWriters = { stdout: failSafeWriter(process.stdout, 'stdout', stderr), stderr };
  return processWriters;
}

/** The process's own streams, each written through a `failSafeWriter`. */
export const processIo = (): CliIo => ({
  ...processStreams(),
  env: process.env,
  isTTY: Boolean(process.stdout.isTTY),
});

/** A command handler sets this to report its exit status. */
export interface CommandContext {
  io: CliIo;
  exit: (code: ExitCode) => void;
}

export { fromAction } from '../results/ci.js';
