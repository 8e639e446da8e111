/**
 * The faulty-server catalogue: the server's own faults (faults.ts) merged with the runner's
 * (runner-faults.ts). `startFaultyServer(name, options)` starts the reference server with that one
 * fault switched on through `configure`. Names are unique across both lists.
 */
import { startReferenceServer, type ReferenceServer, type ReferenceServerOptions } from '../../../src/server/index.js';
import { serverFaults, type ServerFault } from './server-faults.js';
import { runnerFaults } from './runner-faults.js';
import { promiseFaults } from './promise-faults.js';

export type { ServerFault } from './server-faults.js';
export { serverFaults } from './server-faults.js';
export { caughtBy, catchOf, checkOf, describeCatch, type Catch, type CatchSpec } from './catches.js';

/** Every fault of the catalogue; construction refuses a duplicate name. */
export const faults: readonly ServerFault[] = (() => {
  const all: ServerFault[] = [...serverFaults, ...runnerFaults, ...promiseFaults];
  const seen = new Set<string>();
  for (const fault of all) {
    if (seen.has(fault.name)) throw new Error(`faulty catalogue: the fault name ${fault.name} is used twice`);
    seen.add(fault.name);
  }
  return all;
})();

export function faultByName(name: string): ServerFault {
  const found = faults.find((f) => f.name === name);
  if (!found) throw new Error(`unknown fault "${name}"; known: ${faults.map((f) => f.name).join(', ')}`);
  return found;
}

/**
 * The reference server with one named fault on. Listens on 127.0.0.1, a free port, unless told
 * otherwise; the fault's own options (e.g. a small rate limit) apply unless `options` overrides them.
 */
export async function startFaultyServer(name: string, options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const fault = faultByName(name);
  const outer = options.configure;
  return startReferenceServer({
    host: '127.0.0.1',
    port: 0,
    ...fault.options,
    ...options,
    configure: async (app, internals) => {
      await outer?.(app, internals);
      await fault.configure(app, internals);
    },
  });
}
