import type { ErrorCode } from '../errors.js';
import { credentialHeader, operationLabel, type Credential, type Operation, type SpecModel } from '../spec/model.js';
import type { Credentials } from '../checks/check.js';
import type { Fixtures } from '../results/fixtures.js';
import type { ContractProfile } from '../checks/profile.js';
import type { RunContext } from './context.js';
import type { Exchange } from '../transport/types.js';
import { fillPath } from '../spec/path-template.js';

export interface DiscoveryResult {
  /** Discovered fixtures merged under the configured ones (config wins). */
  fixtures: Fixtures;
  /** Where each fixture came from. */
  sources: Record<string, 'config' | 'discovered'>;
  /** One line per discovery request: what it answered. */
  notes: string[];
  exchanges: Exchange[];
  /** True when no discovery request got any HTTP response (refused, reset, timed out). */
  unreachable: boolean;
  /** The first transport error, when unreachable. */
  error?: string;
  /** What each discovery request answered (the status; undefined when no response came). */
  answers: DiscoveryAnswer[];
}

export interface DiscoveryAnswer {
  operation: Operation;
  status?: number;
}

/**
 * Fixtures given in the config win over discovered ones; each value says where it came from. The
 * profile's keys come first, in its order, then any other key given or found.
 */
function mergeFixtures(
  keys: readonly string[],
  configured: Fixtures,
  found: Fixtures,
): Pick<DiscoveryResult, 'fixtures' | 'sources'> {
  const fixtures: Fixtures = {};
  const sources: DiscoveryResult['sources'] = {};
  for (const key of new Set([...keys, ...Object.keys(configured), ...Object.keys(found)])) {
    const fromConfig = configured[key];
    const fromApi = found[key];
    if (fromConfig !== undefined && !(Array.isArray(fromConfig) && fromConfig.length === 0)) {
      fixtures[key] = fromConfig;
      sources[key] = 'config';
    } else if (fromApi !== undefined) {
      fixtures[key] = fromApi;
      sources[key] = 'discovered';
    }
  }
  return { fixtures, sources };
}

/**
 * Finds the ids checks need: the profile reads them from the target's read-only operations (for
 * this contract, suites/profile.ts), each sent, counted and noted here. Fixtures given in the
 * config win over discovered ones.
 */
export async function discoverFixtures(
  ctx: RunContext,
  profile: ContractProfile,
  configured: Fixtures = {},
): Promise<DiscoveryResult> {
  const notes: string[] = [];
  const exchanges: Exchange[] = [];
  const answers: DiscoveryAnswer[] = [];
  let answered = 0;
  let firstError: string | undefined;

  const get = async (opId: string, query?: Array<[string, string]>): Promise<unknown> => {
    let op: Operation;
    try {
      op = ctx.spec.operation(opId);
    } catch {
      return undefined;
    }
    const request = {
      method: op.method,
      path: op.path,
      operation: op,
      checkId: 'discovery',
      ...(query ? { query } : {}),
    };
    const exchange = await ctx.send(request);
    exchanges.push(exchange);
    answers.push(exchange.response ? { operation: op, status: exchange.response.status } : { operation: op });
    if (!exchange.response) {
      firstError ??= `${operationLabel(op)}: ${exchange.error?.message ?? 'no response'}`;
      notes.push(`${operationLabel(op)}: no response (${exchange.error?.message ?? 'unknown error'})`);
      return undefined;
    }
    answered++;
    const { status, json } = exchange.response;
    if (status < 200 || status > 299) {
      notes.push(`${operationLabel(op)}: answered ${status}; nothing discovered from it`);
      return undefined;
    }
    if (json === undefined) {
      notes.push(`${operationLabel(op)}: answered ${status} without a JSON body`);
      return undefined;
    }
    notes.push(`${operationLabel(op)}: answered ${status}`);
    return json;
  };

  const found = await profile.discover(get);
  const { fixtures, sources } = mergeFixtures(
    profile.fixtures.map((f) => f.key),
    configured,
    found,
  );
  const result: DiscoveryResult = {
    fixtures,
    sources,
    notes,
    exchanges,
    answers,
    unreachable: exchanges.length > 0 && answered === 0,
  };
  if (result.unreachable && firstError) result.error = firstError;
  return result;
}

/** A wrong setup found by discovery: the error code and one sentence naming the problem and the fix. */
export interface SetupProblem {
  code: Extract<
    ErrorCode,
    'E_NO_CREDENTIALS' | 'E_CREDENTIALS_REFUSED' | 'E_CONTRACT_NOT_FOUND' | 'E_FIXTURE_NOT_FOUND'
  >;
  message: string;
}

/** How each credential is given to `vapc run`: the flag and the env var (the header name comes from the spec). */
const CREDENTIAL_INPUTS: Record<Credential, { flag: string; env: string; what: string }> = {
  bearer: { flag: '--api-key', env: 'VAPC_API_KEY', what: 'API key' },
  userId: { flag: '--user-id', env: 'VAPC_USER_ID', what: 'user id' },
};

const joinAnd = (items: string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;

/**
 * Decides from the discovery answers alone whether the run is set up to judge the target, before
 * any check runs: every documented path answering 404 means the contract is not at the base URL
 * (a missing or extra path prefix); every credentialed read refused (401/403) means the
 * credentials are missing or wrong. A partial picture (some reads served, or other statuses) is
 * left to the checks to judge. The auth suite's own probes with missing or wrong credentials
 * never come here: only discovery decides setup.
 */
export function diagnoseSetup(
  discovery: Pick<DiscoveryResult, 'answers'>,
  spec: SpecModel,
  credentials: Credentials,
  baseUrl: string,
): SetupProblem | undefined {
  const answered = discovery.answers.filter((a): a is Required<DiscoveryAnswer> => a.status !== undefined);
  if (answered.length === 0) return undefined;
  const labels = (list: DiscoveryAnswer[]) => joinAnd([...new Set(list.map((a) => operationLabel(a.operation)))]);
  if (answered.every((a) => a.status === 404)) {
    return {
      code: 'E_CONTRACT_NOT_FOUND',
      message: `the contract was not found at ${baseUrl}: ${labels(answered)} all answered 404, so --base-url (VAPC_BASE_URL) probably lacks the API's path prefix or has one too many`,
    };
  }
  const guarded = answered.filter((a) => a.operation.credentials.length > 0);
  if (guarded.length === 0 || !guarded.every((a) => a.status === 401 || a.status === 403)) return undefined;
  const needed = [...new Set(guarded.flatMap((a) => a.operation.credentials))];
  const given = (kind: Credential): boolean =>
    (kind === 'bearer' ? credentials.apiKey : credentials.userId) !== undefined;
  const missing = needed.filter((kind) => !given(kind));
  const how = (kinds: Credential[]) =>
    joinAnd(kinds.map((k) => `${CREDENTIAL_INPUTS[k].flag} (${CREDENTIAL_INPUTS[k].env})`));
  const statuses = [...new Set(guarded.map((a) => a.status))].join('/');
  if (missing.length > 0) {
    const what = joinAnd(missing.map((k) => `${CREDENTIAL_INPUTS[k].what} (${credentialHeader(spec, k)})`));
    return {
      code: 'E_NO_CREDENTIALS',
      message: `no ${what} ${missing.length > 1 ? 'were' : 'was'} given and ${labels(guarded)} answered ${statuses}: pass ${how(missing)}`,
    };
  }
  const userHeader = needed.includes('userId')
    ? ` (${credentialHeader(spec, 'userId')} must name the user the key belongs to)`
    : '';
  return {
    code: 'E_CREDENTIALS_REFUSED',
    message: `the credentials were refused: ${labels(guarded)} answered ${statuses} to the ${joinAnd(needed.map((k) => CREDENTIAL_INPUTS[k].what))} given; check ${how(needed)}${userHeader}`,
  };
}

/**
 * A configured fixture the target does not have is a setup error, not a refused valid request:
 * each operation without outside effects (the profile's `destructive`) whose path names only configured fixtures is sent once
 * with them and the smallest body (`{}`: valid only where the schema requires no field, as for a
 * recipient, which then joins the test list like the checks' own); a 404 names the fixture. Other
 * answers (a 422 from a server that validates first, or the lookup passing) leave it to the checks.
 */
export async function probeConfiguredFixtures(
  ctx: RunContext,
  profile: ContractProfile,
  configured: Fixtures,
): Promise<SetupProblem | undefined> {
  for (const op of ctx.spec.operations) {
    const params = op.parameters
      .filter((p) => p.in === 'path')
      .map((p) => ({ name: p.name, key: profile.fixtureOfParam(p.name) }));
    if (
      profile.destructive(op) !== undefined ||
      params.length === 0 ||
      params.some((p) => p.key === undefined || typeof configured[p.key] !== 'string')
    )
      continue;
    const values = Object.fromEntries(params.map((p) => [p.name, configured[p.key!] as string]));
    const request = {
      method: op.method,
      path: fillPath(op.path, values),
      operation: op,
      checkId: 'discovery',
      ...(op.requestBody ? { json: {} } : {}),
    };
    const exchange = await ctx.send(request);
    if (exchange.response?.status !== 404) continue;
    const keys = params.map((p) => `fixtures.${p.key} "${values[p.name]}"`).join(' and ');
    return {
      code: 'E_FIXTURE_NOT_FOUND',
      message: `the configured ${keys} is not on the target: ${operationLabel(op)} answered 404 for it; give an id the target has, or remove it from the config file's fixtures: so the checks that need it are skipped`,
    };
  }
  return undefined;
}
