import { appendFileSync } from 'node:fs';
import type { RunEvents } from '../results/events.js';
import { OutputGuard } from '../secrets/guard.js';
import { Secrets, type SecretsOptions } from '../secrets/index.js';
import { githubAnnotations, githubStepSummary } from './github.js';

export interface GitHubSinkOptions {
  /** Where the annotations go (stdout). */
  write: (text: string) => void;
  env: Record<string, string | undefined>;
  /** The run's secrets (or the credentials to redact): scrubbed from all output. */
  secrets?: Secrets | SecretsOptions;
  /** Appends the Markdown job summary to $GITHUB_STEP_SUMMARY; injectable for tests. */
  appendFile?: (path: string, text: string) => void;
}

/**
 * GitHub Actions output as an event sink, composed next to the console reporter: at the end of a
 * run under GITHUB_ACTIONS=true, `::error` annotations on stdout and a Markdown job summary
 * appended to $GITHUB_STEP_SUMMARY; nothing elsewhere. The report it is given is already safe (the
 * runner's, sanitised at its source, or one read from disk and passed through sanitizeReport once).
 */
export function createGitHubSink(options: GitHubSinkOptions): RunEvents {
  if (options.env.GITHUB_ACTIONS !== 'true') return {};
  const guard = new OutputGuard(
    options.secrets instanceof Secrets ? options.secrets : new Secrets(options.secrets ?? {}),
  );
  return {
    onEnd(report) {
      // The trusted path: vapc's own workflow commands, built from the safe report, are only
      // redacted; the step summary and every other line pass the one output guard.
      options.write(guard.secrets.scrub(githubAnnotations(report)));
      const file = options.env.GITHUB_STEP_SUMMARY;
      if (!file) return;
      try {
        (options.appendFile ?? appendFileSync)(file, guard.markdown(githubStepSummary(report)));
      } catch (e) {
        options.write(
          guard.line(`vapc: could not append to GITHUB_STEP_SUMMARY: ${e instanceof Error ? e.message : String(e)}`),
        );
      }
    },
  };
}
