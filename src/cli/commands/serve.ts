import { InvalidArgumentError, type Command } from 'commander';
import { VapcError } from '../../errors.js';
import {
  startReferenceServer,
  DEFAULT_RATE_LIMIT,
  DEFAULT_RATE_WINDOW_MS,
  DEFAULT_USER_ID,
} from '../../server/index.js';
import { loadSpec } from '../../spec/load.js';
import { credentialHeader, operationLabel, type SpecModel } from '../../spec/model.js';
import type { CommandContext } from '../io.js';

interface ServeFlags {
  host: string;
  port: number;
  apiKey?: string;
  userId: string;
  rateLimit: number;
  rateWindowS: number;
}

const integer =
  (name: string, min: number, max: number) =>
  (raw: string): number => {
    const value = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
    }
    return value;
  };

const positiveNumber =
  (name: string) =>
  (raw: string): number => {
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value) || value <= 0 || value > 86_400) {
      throw new InvalidArgumentError(`${name} must be a number of seconds above 0 and at most 86400, got "${raw}"`);
    }
    return value;
  };

const nonEmpty =
  (name: string) =>
  (raw: string): string => {
    if (raw.trim() === '' || /[\s]/.test(raw))
      throw new InvalidArgumentError(`${name} must be a non-empty value without spaces`);
    return raw;
  };

/**
 * The headers a client sends, read from the spec's security schemes, for people (stderr): the
 * fixtures line has the values; the operations open without credentials are named.
 */
export function expectedHeadersLine(spec: SpecModel): string {
  const open = spec.operations.filter((o) => !o.requiresCredentials).map(operationLabel);
  const bearerOnly = spec.operations.filter((o) => o.requiresCredentials && !o.credentials.includes('userId')).length;
  return (
    `send ${credentialHeader(spec, 'bearer')}: Bearer <api_key> and ${credentialHeader(spec, 'userId')}: <user_id> (values in the fixtures line)` +
    `${open.length ? `; ${open.join(', ')} needs neither` : ''}${bearerOnly ? `, ${bearerOnly} operation${bearerOnly === 1 ? '' : 's'} only the bearer` : ''}; without them: 401`
  );
}

/**
 * vapc serve: the reference server until SIGINT/SIGTERM. Prints `listening http://HOST:PORT`, then
 * `fixtures {json}` (runner-interface.md), and nothing else on stdout; on stderr, one line for people
 * naming the headers a client sends (placeholders, no values). The server logs nothing, so no
 * secret is printed beyond the fixtures line the interface asks for.
 */
export function registerServeCommand(program: Command, ctx: CommandContext): void {
  program
    .command('serve')
    .description('Start the reference server (the whole contract in memory) until interrupted')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free port)', integer('--port', 0, 65535), 4010)
    .option('--api-key <key>', 'the bearer value to accept (random when not given)', nonEmpty('--api-key'))
    .option('--user-id <id>', 'the X-User-ID value to accept', nonEmpty('--user-id'), DEFAULT_USER_ID)
    .option(
      '--rate-limit <n>',
      'requests per window per key',
      integer('--rate-limit', 1, 1_000_000_000),
      DEFAULT_RATE_LIMIT,
    )
    .option(
      '--rate-window-s <s>',
      'rate-limit window in seconds',
      positiveNumber('--rate-window-s'),
      DEFAULT_RATE_WINDOW_MS / 1000,
    )
    .action(async (flags: ServeFlags) => {
      let server;
      const spec = await loadSpec();
      try {
        server = await startReferenceServer({
          spec,
          host: flags.host,
          port: flags.port,
          userId: flags.userId,
          rateLimit: flags.rateLimit,
          rateWindowMs: Math.round(flags.rateWindowS * 1000),
          ...(flags.apiKey !== undefined ? { apiKey: flags.apiKey } : {}),
        });
      } catch (error) {
        const code = (error as { code?: string }).code;
        const reason =
          code === 'EADDRINUSE'
            ? `port ${flags.port} on ${flags.host} is already in use (try --port 0 for a free one)`
            : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN'
              ? `cannot listen on ${flags.host}: no such local address`
              : code === 'EACCES'
                ? `not allowed to listen on ${flags.host}:${flags.port}`
                : error instanceof Error
                  ? error.message
                  : String(error);
        throw new VapcError(
          error instanceof VapcError ? error.code : 'E_USAGE',
          `cannot start the reference server: ${reason}`,
          { cause: error },
        );
      }
      ctx.io.stdout(`listening ${server.url}\n`);
      ctx.io.stdout(`fixtures ${JSON.stringify(server.fixtures)}\n`);
      ctx.io.stderr(`vapc serve: ${expectedHeadersLine(spec)}\n`);
      const running = server;
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          running.close().then(resolve, resolve);
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      ctx.exit(0);
    });
}
