/**
 * What every command shares: the exit statuses and the outside world a command may touch. Commands
 * import this, never `main.ts` (which imports the commands).
 */

/** Exit statuses of vapc: 0 nothing failed, 1 a check (or lint) failed, 2 usage/config error or unreachable target. */
export const ExitCode = { ok: 0, failed: 1, usage: 2 } as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** What a command needs from the outside world; tests pass their own. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  isTTY: boolean;
}

export const processIo = (): CliIo => ({
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  env: process.env,
  isTTY: Boolean(process.stdout.isTTY),
});

/** A command handler sets this to report its exit status. */
export interface CommandContext {
  io: CliIo;
  exit: (code: ExitCode) => void;
}

/**
 * True when the GitHub Action (scripts/action.mjs) started this command: messages then name the
 * Action's inputs, and the Action, not the CLI, writes the one `::error` of an exit 2.
 */
export const fromAction = (env: Record<string, string | undefined>): boolean => env['VAPC_ACTION'] === 'true';
