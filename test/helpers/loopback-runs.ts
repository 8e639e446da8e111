/**
 * What the end-to-end runner tests share: servers on loopback that print the fixtures of
 * runner-interface.md (the reference server and the independent implementations alike), the
 * runner's options for one of them, and the failed or errored results of a run as readable lines.
 */
import { afterEach } from 'vitest';
import type { ConformanceOptions } from '../../src/runner/conformance.js';
import { validateWireRequest } from '../../src/checks/wire.js';
import type { Suite } from '../../src/results/model.js';
import type { SpecModel } from '../../src/spec/model.js';
import { checks } from '../../suites/index.js';
import { profile } from '../../suites/profile.js';

export interface LoopbackFixtures {
  api_key: string;
  user_id: string;
  org_id: string;
  recipient_list_id: string;
  api_key_id: string;
  channels: readonly string[];
}

export interface LoopbackServer {
  url: string;
  fixtures: LoopbackFixtures;
  close(): Promise<void>;
}

/** Every suite but the rate-limit burst, which spends a window and runs against a small limit. */
export const NOT_RATELIMIT: Suite[] = ['auth', 'validation', 'ranges', 'schema', 'stateful', 'cors', 'robustness'];

/** The burst's small limit and window, so the wait for its reset stays short. */
export const SMALL_LIMIT = { rateLimit: 20, rateWindowMs: 1500 };

/**
 * Starts servers with `start` (a limit too high to matter unless given) and closes every one after
 * each test of the calling file.
 */
export function loopbackServers<O extends { rateLimit?: number; rateWindowMs?: number }, S extends LoopbackServer>(
  start: (options: O) => Promise<S>,
): (options?: Partial<O>) => Promise<S> {
  const open: S[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  return async (options = {}) => {
    // Port 0: a starter whose default is a fixed port (the reference server's 4010) must not collide
    // with another run on the machine.
    const s = await start({ port: 0, rateLimit: 1_000_000, rateWindowMs: 60_000, ...options } as unknown as O);
    open.push(s);
    return s;
  };
}

/** The runner's options for a loopback server: its credentials and fixtures, 3 runs, every suite but the burst. */
export function runnerOptions(
  server: LoopbackServer,
  spec: SpecModel,
  over: Partial<ConformanceOptions> = {},
): ConformanceOptions {
  const { api_key, user_id, org_id, recipient_list_id, api_key_id, channels } = server.fixtures;
  return {
    baseUrl: server.url,
    checks,
    profile,
    spec,
    seed: 1,
    runs: 3,
    credentials: { apiKey: api_key, userId: user_id },
    fixtures: { org_id, recipient_list_id, api_key_id, channels: [...channels] },
    validateRequest: validateWireRequest,
    suites: NOT_RATELIMIT,
    ...over,
  };
}

/** The failed and errored results of a run, one line each (an empty list is a clean run). */
export const failedOf = (
  results: ReadonlyArray<{ status: string; id: string; operation: string; message: string }>,
): string[] =>
  results
    .filter((r) => r.status === 'failed' || r.status === 'error')
    .map((r) => `${r.status} ${r.id} ${r.operation}: ${r.message}`);

/**
 * Starts one server with `start` (defaults as `loopbackServers`), runs `use` on it and closes it,
 * whatever happens: safe in concurrent tests, where `loopbackServers`' afterEach would close the
 * servers of tests still running.
 */
export async function withLoopbackServer<
  O extends { rateLimit?: number; rateWindowMs?: number },
  S extends LoopbackServer,
  T,
>(start: (options: O) => Promise<S>, options: Partial<O>, use: (server: S) => Promise<T>): Promise<T> {
  // Port 0: a starter whose default is a fixed port (the reference server's 4010) must not collide
  // with another run on the machine.
  const s = await start({ port: 0, rateLimit: 1_000_000, rateWindowMs: 60_000, ...options } as unknown as O);
  try {
    return await use(s);
  } finally {
    await s.close();
  }
}
