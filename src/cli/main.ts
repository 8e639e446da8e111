import { Command, CommanderError } from 'commander';
import { isVapcError } from '../errors.js';
import { packageVersion } from '../paths.js';
import { ExitCode, processIo, type CliIo, type CommandContext } from './io.js';
import { environmentGuard } from '../secrets/guard.js';

export { ExitCode, processIo, type CliIo, type CommandContext } from './io.js';

type Register = (program: Command, ctx: CommandContext) => void;

/**
 * Each command's module, loaded only when needed: `vapc serve` should not pay for fast-check and
 * the runner, `vapc --version` for none of them. Help and unknown commands load all.
 */
const commandModules: Record<string, () => Promise<Register>> = {
  lint: async () => (await import('./commands/spec.js')).registerSpecCommands,
  run: async () => (await import('./commands/run.js')).registerRunCommand,
  serve: async () => (await import('./commands/serve.js')).registerServeCommand,
  report: async () => (await import('./commands/report.js')).registerReportCommand,
  diff: async () => (await import('./commands/diff.js')).registerDiffCommand,
  drift: async () => (await import('./commands/drift.js')).registerDriftCommand,
  proxy: async () => (await import('./commands/proxy.js')).registerProxyCommand,
  export: async () => (await import('./commands/export.js')).registerExportCommand,
};
commandModules['build'] = commandModules['lint']!;
commandModules['docs'] = commandModules['lint']!;

async function registersFor(argv: string[]): Promise<Register[]> {
  const first = argv[0];
  if (first === '-V' || first === '--version') return [];
  const only = first === undefined ? undefined : commandModules[first];
  const loaders = only ? [only] : [...new Set(Object.values(commandModules))];
  return Promise.all(loaders.map((load) => load()));
}

export async function buildProgram(ctx: CommandContext, argv: string[] = []): Promise<Command> {
  const program = new Command('vapc')
    .description(
      'The Voice-Agent Platform API contract (2.0.1), executable: lint, docs, validators, reference server, conformance runner.',
    )
    .version(packageVersion(), '-V, --version')
    .showHelpAfterError('(run vapc --help for usage)')
    // Commander's usage errors quote the arguments given (a workflow may pass on a branch name): guarded.
    .configureOutput({
      writeOut: ctx.io.stdout,
      writeErr: (text) => ctx.io.stderr(environmentGuard(ctx.io.env).block(text)),
    })
    .exitOverride();
  for (const register of await registersFor(argv)) register(program, ctx);
  return program;
}

const HELP = new Set(['-h', '--help']);
const VERSION = new Set(['-V', '--version']);

/** The commands that take a subcommand word, with it. */
const SUBCOMMANDS: ReadonlyArray<readonly [string, string]> = [
  ['report', 'merge'],
  ['export', 'arazzo'],
];

/**
 * `--help` and `--version` print and exit 0 wherever commander finds them, so `vapc diff --help
 * HEAD` or `vapc run --changed-since -V` would pass a gate without a diff or a run: a revision (or
 * any argument a workflow passes on) must never be read as one. They are honoured only alone:
 * `vapc --version`, `vapc --help`, `vapc <command> --help`, `vapc report merge --help`, `vapc export arazzo --help`; with any
 * other argument (before `--`, which ends options) they are a usage error.
 */
function helpOrVersionMisused(argv: readonly string[]): string | undefined {
  const end = argv.indexOf('--');
  const options = end === -1 ? argv : argv.slice(0, end);
  const flag = options.find((a) => HELP.has(a) || VERSION.has(a));
  if (flag === undefined) return undefined;
  const words = argv.filter((a) => a !== flag);
  const commandPath =
    words.length === 0 ||
    (words.length === 1 && words[0]! in commandModules) ||
    (words.length === 2 && SUBCOMMANDS.some(([command, sub]) => words[0] === command && words[1] === sub));
  if (VERSION.has(flag) ? argv.length === 1 : commandPath) return undefined;
  return `${flag} takes no other argument (vapc ${VERSION.has(flag) ? '--version' : '<command> --help'}); an argument that starts with "-" (a revision, a file) goes after --`;
}

/** Runs the CLI and returns its exit status; never throws, never calls process.exit. */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  let code: number = ExitCode.ok;
  const ctx: CommandContext = { io, exit: (c) => (code = c) };
  const misuse = helpOrVersionMisused(argv);
  if (misuse !== undefined) {
    io.stderr(environmentGuard(io.env).line(`vapc: ${misuse} [E_USAGE]`));
    return ExitCode.usage;
  }
  try {
    const program = await buildProgram(ctx, argv);
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with exit code 0; usage errors have been printed by commander.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    if (isVapcError(error)) {
      // A message may quote a server (an unreachable target's error) or a file: data, never control,
      // and never a credential of the environment. Every code is exit 2, E_TOOL_FAILED (a fault of
      // the tool: a malformed check registry, a missing precompiled validator) included: exit 1
      // says a check failed, and a CI gate must not read the tool's fault as the server's.
      io.stderr(environmentGuard(io.env).line(`vapc: ${error.message} [${error.code}]`));
      return ExitCode.usage;
    }
    io.stderr(
      environmentGuard(io.env).line(`vapc: internal error: ${error instanceof Error ? error.message : String(error)}`),
    );
    return ExitCode.usage;
  }
  return code;
}
