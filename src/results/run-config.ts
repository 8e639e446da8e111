/**
 * The effective options of a run as report.json's `config` shows them (docs/interface.md): one
 * spelling (snake_case), credentials never by value (`api_key: 'set'`, and where each came from).
 * Written by the CLI and the runner, read back by the replay line, the merge of shards and the
 * HTML report; a report read from disk may hold other keys (kept, shown, never trusted).
 */
import type { Fixtures } from './fixtures.js';

/** Where a credential came from (never its value). */
export type CredentialSource = 'flag' | 'env' | 'config' | 'none';

export interface RunConfig {
  base_url?: string;
  embedded?: boolean;
  config_file?: string;
  /** 'set' when given, never the value (a report read from disk may hold another string, redacted). */
  api_key?: string;
  user_id?: string;
  api_key_from?: CredentialSource;
  user_id_from?: CredentialSource;
  seed?: number;
  /** Generated cases per property, as the runner sized them. */
  runs?: number;
  request_budget?: number;
  /** The suites the run selected, in run order. */
  suites?: string[];
  /** The contract's suites (its profile's), in run order: what a run of every suite selects. */
  all_suites?: string[];
  rpm?: number;
  timeout_ms?: number;
  deadline_ms?: number;
  include_destructive?: boolean;
  strict_types?: boolean;
  dry_run?: boolean;
  quiet?: boolean;
  report_dir?: string;
  fixtures?: Fixtures;
  /** `--arazzo FILE`: the workflow files run as the workflows suite, as given. */
  arazzo?: string[];
  /** `--check ID`: the run was narrowed to these checks. */
  checks?: string[];
  /** Where each fixture came from. */
  fixtures_sources?: Record<string, 'config' | 'discovered'>;
  /** Set by `vapc report merge`: how many shards the report joins. */
  merged_shards?: number;
  [key: string]: unknown;
}
