/**
 * What `vapc run` resolves before the runner starts: the target (a base URL, or the embedded
 * reference server), the operations a --changed-since focus keeps, and runConformance's options
 * from the settings (report.json's `config` among them, credentials never by value).
 */
import type { CheckDefinition, Credentials, Fixtures } from '../../checks/check.js';
import { validateWireRequest } from '../../checks/wire.js';
import { redactedSettings, type RunSettings } from '../../config/settings.js';
import type { RunFocus } from '../../diff/focus.js';
import { paths } from '../../paths.js';
import type { Suite } from '../../results/model.js';
import type { CredentialSource, RunConfig } from '../../results/run-config.js';
import type { runConformance } from '../../runner/conformance.js';
import { operationLabel } from '../../runner/run.js';
import type { Secrets } from '../../secrets/index.js';
import type { ReferenceServer } from '../../server/index.js';
import type { SpecModel } from '../../spec/model.js';
import { profile } from '../../../suites/profile.js';

type ConformanceOptions = Parameters<typeof runConformance>[0];

/**
 * The embedded reference server allows 1000 requests (the production plan's figure) per 10 s
 * window, so `npm start` is quick and the wait for the burst's reset is at most 10 s; the runner
 * paces and sizes its budget from the advertised headers either way.
 */
export const EMBEDDED_RATE_LIMIT = 1000;
export const EMBEDDED_RATE_WINDOW_MS = 10_000;

/** The target of a run: the base URL and credentials given, or an embedded reference server with its own. */
export interface Target {
  baseUrl: string;
  credentials: Credentials;
  fixtures: Fixtures;
  server?: ReferenceServer;
}

export async function targetOf(settings: RunSettings, spec: SpecModel): Promise<Target> {
  const credentials: Credentials = {};
  if (settings.apiKey !== undefined) credentials.apiKey = settings.apiKey;
  if (settings.userId !== undefined) credentials.userId = settings.userId;
  if (!settings.embedded) return { baseUrl: settings.baseUrl!, credentials, fixtures: { ...settings.fixtures } };
  const { startReferenceServer } = await import('../../server/index.js');
  const server = await startReferenceServer({
    host: '127.0.0.1',
    port: 0,
    spec,
    rateLimit: EMBEDDED_RATE_LIMIT,
    rateWindowMs: EMBEDDED_RATE_WINDOW_MS,
  });
  credentials.apiKey = server.fixtures.api_key;
  credentials.userId = server.fixtures.user_id;
  const { org_id, recipient_list_id, api_key_id, channels } = server.fixtures;
  return {
    baseUrl: server.url,
    credentials,
    fixtures: { org_id, recipient_list_id, api_key_id, channels: [...channels], ...settings.fixtures },
    server,
  };
}

/** --changed-since BASE: diff BASE against the spec this run uses and select the touched operations plus the smoke set. */
export async function focusSince(baseArg: string, spec: SpecModel): Promise<RunFocus> {
  // Loaded only with --changed-since (start-up cost: see bench/RESULTS.md).
  const [{ diffDocuments }, { selectFocus }, { loadSpecSource }] = await Promise.all([
    import('../../diff/index.js'),
    import('../../diff/focus.js'),
    import('../../diff/source.js'),
  ]);
  const base = await loadSpecSource(baseArg, process.cwd());
  const head = await loadSpecSource(paths.specSource, process.cwd()).catch((error: unknown) => {
    base.dispose();
    throw error;
  });
  try {
    const changes = diffDocuments(base.document, head.document);
    const ops = spec.operations.map((op) => ({
      label: operationLabel(op),
      method: op.method,
      hasParameters: op.parameters.length > 0,
      hasBody: Boolean(op.requestBody),
    }));
    return selectFocus(baseArg, changes, ops);
  } finally {
    base.dispose();
    head.dispose();
  }
}

/**
 * Where each credential came from (flag, env, config or none; never its value), so the replay line
 * names the same source. The key names stay clear of the secret-field names reporters scrub.
 */
export function credentialSources(
  flags: { apiKey?: unknown; userId?: unknown },
  env: Record<string, string | undefined>,
  settings: RunSettings,
): Pick<RunConfig, 'api_key_from' | 'user_id_from'> {
  const from = (flag: unknown, envName: string, value: string | undefined): CredentialSource =>
    flag !== undefined ? 'flag' : env[envName] ? 'env' : value !== undefined ? 'config' : 'none';
  return {
    api_key_from: from(flags.apiKey, 'VAPC_API_KEY', settings.apiKey),
    user_id_from: from(flags.userId, 'VAPC_USER_ID', settings.userId),
  };
}

/** report.json's `config`, typed (RunConfig): the settings in one spelling, credentials never by value. */
function runConfigOf(
  settings: RunSettings,
  seed: number,
  baseUrl: string,
  sources: Pick<RunConfig, 'api_key_from' | 'user_id_from'>,
): RunConfig {
  const config = redactedSettings({ ...settings, seed } as RunSettings) as RunConfig;
  if (settings.embedded) config.base_url = baseUrl;
  else Object.assign(config, sources);
  return config;
}

/** What the run is about, resolved before runConformance is called. */
export interface RunScope {
  spec: SpecModel;
  target: Target;
  checks: readonly CheckDefinition[];
  seed: number;
  focus: RunFocus | undefined;
  sources: Pick<RunConfig, 'api_key_from' | 'user_id_from'>;
}

/** runConformance's options: the target, the checks and the contract's profile, and what the settings chose. */
export function conformanceOptions(settings: RunSettings, scope: RunScope, secrets: Secrets): ConformanceOptions {
  const { spec, checks, seed, focus } = scope;
  const { baseUrl, credentials, fixtures } = scope.target;
  const options: ConformanceOptions = {
    baseUrl,
    spec,
    secrets,
    checks,
    profile,
    credentials,
    fixtures,
    seed,
    config: runConfigOf(settings, seed, baseUrl, scope.sources),
    validateRequest: validateWireRequest,
    includeDestructive: settings.includeDestructive,
    strictTypes: settings.strictTypes,
    dryRun: settings.dryRun,
    coverageFloor: settings.coverageFloor,
  };
  // parseSuites accepted only the profile's suite names.
  if (settings.suites) options.suites = settings.suites as readonly Suite[];
  if (focus) {
    options.operations = new Set(focus.operations.map((o) => o.operation));
    options.focus = focus;
  }
  if (settings.runs !== undefined) options.runs = settings.runs;
  if (settings.rpm !== undefined) options.rpm = settings.rpm;
  if (settings.budget !== undefined) options.budget = settings.budget;
  if (settings.timeoutMs !== undefined) options.timeoutMs = settings.timeoutMs;
  if (settings.deadlineMs !== undefined) options.deadlineMs = settings.deadlineMs;
  if (settings.shard !== undefined) options.shard = settings.shard;
  return options;
}
