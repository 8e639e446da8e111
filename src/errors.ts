/** Errors of the toolkit: each has a stable `code` that tests assert on; messages are for people. */
export type ErrorCode =
  | 'E_SPEC_INVALID'
  | 'E_SPEC_UNREADABLE'
  /** A spec file or `$ref` refused as input: outside the spec's folder, remote, not a regular file, or past a size/alias/nesting/node cap (exit 2). */
  | 'E_SPEC_REFUSED'
  | 'E_UNKNOWN_OPERATION'
  | 'E_UNKNOWN_SCHEMA'
  | 'E_CONFIG'
  | 'E_USAGE'
  | 'E_UNREACHABLE'
  /** A fault of the tool itself (a malformed check registry, a missing precompiled validator, Redocly failing): exit 2, never 1. */
  | 'E_TOOL_FAILED'
  /** The run stopped before every check ran (deadline passed, target stopped answering); the runner reports it, a check never fails for it. */
  | 'E_RUN_ABORTED'
  /** A baseline file (--baseline) that cannot be read or is not a valid baseline. */
  | 'E_BASELINE'
  /** Setup errors found by discovery before any check is judged (exit 2 like usage errors). */
  | 'E_NO_CREDENTIALS'
  | 'E_CREDENTIALS_REFUSED'
  | 'E_CONTRACT_NOT_FOUND'
  /** A fixture id given in the config (e.g. recipient_list_id) that the target answers 404 for. */
  | 'E_FIXTURE_NOT_FOUND'
  /** A recording `vapc drift` cannot read as traffic (malformed, past a cap, not a regular file): exit 2, nothing written. */
  | 'E_TRAFFIC'
  /** An Arazzo workflow file (`vapc run --arazzo FILE`) that cannot be read, breaks Redocly's Arazzo rules or asks for what vapc cannot run (exit 2). */
  | 'E_WORKFLOW';

export class VapcError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'VapcError';
    this.code = code;
  }
}

export function isVapcError(e: unknown): e is VapcError {
  return e instanceof VapcError;
}

/**
 * A fault of the installed tool (E_TOOL_FAILED: a missing precompiled validator): the runner stops
 * at it rather than record a check `error` and go on, so the run exits 2 with one line to fix it.
 */
export const isToolFault = (e: unknown): e is VapcError => isVapcError(e) && e.code === 'E_TOOL_FAILED';

/** The codes of setup errors: the target is reachable but the run is not set up to judge it. */
export const SETUP_ERROR_CODES: readonly ErrorCode[] = [
  'E_NO_CREDENTIALS',
  'E_CREDENTIALS_REFUSED',
  'E_CONTRACT_NOT_FOUND',
  'E_FIXTURE_NOT_FOUND',
];
