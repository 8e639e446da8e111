/**
 * `voice-agent-contract/runner`: the conformance run as a library. `runConformance` takes a base
 * URL, the checks and a seed and returns the RunReport (no argv, console or process touched);
 * `checks` is the project's registry and `profile` this contract's profile (discovery, fixture
 * keys, destructive and credential-replacing operations), used unless another is given;
 * `defineCheck` and `buildRegistry` make and validate checks of your own, with the toolkit every shipped check
 * uses: judgements gathered by `Findings`, `fail`/`unjudged`/`skipped`, `checkProperty` for a
 * fast-check property over HTTP, and the `Exchange` a check sees; a check with `judgeExchange`
 * judges every answer of the run on its operations (`SharedTally` is what `ctx.judgedElsewhere()` says). The report types describe what
 * comes back.
 */
import {
  runConformance as runWithProfile,
  type ConformanceOptions,
  type ConformanceResult,
} from '../runner/conformance.js';
import { profile } from '../../suites/profile.js';

/** The conformance run (src/runner/conformance.ts) with this contract's profile unless `options.profile` names another. */
export const runConformance = (options: ConformanceOptions): Promise<ConformanceResult> =>
  runWithProfile({ profile, ...options });
export {
  randomSeed,
  DEFAULT_DEADLINE_MS,
  type ConformanceOptions,
  type ConformanceResult,
} from '../runner/conformance.js';
export { checks, checksOf, checkById } from '../../suites/index.js';
export { profile } from '../../suites/profile.js';
export {
  GENERIC_PROFILE,
  suiteOrder,
  type ContractProfile,
  type DiscoveryRead,
  type SuiteSpec,
} from '../checks/profile.js';
export { answerStart, judgeAnswer, type AnswerRules } from '../checks/judge.js';
export {
  defineCheck,
  type CheckContext,
  type CheckDefinition,
  type CheckOutcome,
  type Credentials,
  type PlanEstimateOptions,
  type SendOptions,
  type SharedTally,
} from '../checks/check.js';
export {
  fail,
  Findings,
  isSuccess,
  OK,
  RATE_LIMITED,
  skipped,
  statusText,
  unjudged,
  type Judgement,
} from '../checks/outcomes.js';
export { checkProperty, type PropertyOptions } from '../checks/property.js';
export { passWithEvidence, type EvidenceTally } from '../checks/evidence.js';
export type { Exchange, HttpRequest, HttpResponse, Transport, TransportErrorCode } from '../transport/types.js';
export { VapcError, isVapcError, type ErrorCode } from '../errors.js';
export { buildRegistry, CHECK_ID } from '../checks/registry.js';
export type { Fixtures, FixtureSpec, FixtureValue, TaggedId } from '../results/fixtures.js';
export type {
  CheckResult,
  Failure,
  Observation,
  RunReport,
  RunSummary,
  Severity,
  Suite,
  Verdict,
} from '../results/model.js';
/** The contract's suite names, in run order. */
export { SUITE_NAMES as SUITES } from '../../suites/profile.js';
export type { RunEvents, RunPlan, PacingInfo } from '../results/events.js';
export { Secrets, REDACTED } from '../secrets/index.js';
export { loadSpec } from '../spec/load.js';
export type { SpecModel, Operation } from '../spec/model.js';
