import type { CheckResult, Observation, RunReport, Suite } from './model.js';

/** The event stream from the runner to live reporters (progress display, CI annotations). */
export interface RunPlan {
  target: string;
  seed: number;
  suites: Suite[];
  /** Check × operation pairs planned per suite. */
  checksPerSuite: Partial<Record<Suite, number>>;
  total: number;
}

export interface PacingInfo {
  /** How long the runner is waiting before the next request. */
  waitMs: number;
  limit?: number;
  remaining?: number;
  /** Effective cap in requests per minute, if any. */
  rpm?: number;
  /** What asked for the wait: `X-RateLimit-Remaining: 0 on GET /calls (credentials #1)`, `429 on ...`, `--rpm 60`. */
  cause?: string;
}

export interface RunEvents {
  onStart?(plan: RunPlan): void;
  onSuiteStart?(suite: Suite, checks: number): void;
  onCheckDone?(result: CheckResult): void;
  /** Total requests sent so far. */
  onRequest?(total: number): void;
  onPacing?(info: PacingInfo): void;
  onObservation?(observation: Observation): void;
  onSuiteEnd?(suite: Suite): void;
  onEnd?(report: RunReport): void;
}

/** One event stream fed to several sinks (the console, GitHub output ...), each in the order given. */
export function composeEvents(...sinks: RunEvents[]): RunEvents {
  const all = <K extends keyof RunEvents>(key: K) => {
    const handlers = sinks
      .map((s) => s[key]?.bind(s))
      .filter((h): h is NonNullable<RunEvents[K]> => h !== undefined) as ((...args: unknown[]) => void)[];
    return (...args: unknown[]) => {
      for (const handler of handlers) handler(...args);
    };
  };
  return {
    onStart: all('onStart'),
    onSuiteStart: all('onSuiteStart'),
    onCheckDone: all('onCheckDone'),
    onRequest: all('onRequest'),
    onPacing: all('onPacing'),
    onObservation: all('onObservation'),
    onSuiteEnd: all('onSuiteEnd'),
    onEnd: all('onEnd'),
  };
}
