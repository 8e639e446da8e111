/**
 * The one definition of "under CI" (issue 34): every command and reporter that behaves differently
 * in CI asks this. Under CI a config file in the checkout is the pull request's own (src/cli/settings
 * refuse the gate settings in it), and the console prints plain lines instead of a live bar.
 *
 * `CI` counts when it is true in any spelling or a number other than 0 (`true`, `True`, `TRUE`, `1`,
 * `yes`); providers that do not set `CI` are known by their own variable. An empty value, `false`
 * or `0` says "not CI" (a developer's shell with `CI=false`).
 */

/** Each CI provider's own variable, set on every job it runs (checked when `CI` itself says nothing). */
export const CI_PROVIDER_VARIABLES = [
  'GITHUB_ACTIONS',
  'GITLAB_CI',
  'BUILDKITE',
  'CIRCLECI',
  'JENKINS_URL',
  'TF_BUILD',
  'TRAVIS',
  'APPVEYOR',
  'TEAMCITY_VERSION',
  'BITBUCKET_BUILD_NUMBER',
  'CODEBUILD_BUILD_ID',
  'DRONE',
  'SEMAPHORE',
  'BUDDY',
  'CIRRUS_CI',
  'HARNESS_BUILD_ID',
  'WOODPECKER',
] as const;

/** A variable set to something other than nothing, `false`, `no`, `off` or `0` (any case, blanks trimmed). */
function isSet(value: string | undefined): boolean {
  if (value === undefined) return false;
  const v = value.trim().toLowerCase();
  return v !== '' && v !== 'false' && v !== '0' && v !== 'no' && v !== 'off';
}

/** True under CI: `CI` set (true in any case, `1`), or a CI provider's own variable set. */
export function underCi(env: Readonly<Record<string, string | undefined>>): boolean {
  return isSet(env['CI']) || CI_PROVIDER_VARIABLES.some((name) => isSet(env[name]));
}

/**
 * True when the GitHub Action (scripts/action.mjs) started this command: messages then name the
 * Action's inputs, and the Action, not the CLI, writes the one `::error` of an exit 2.
 */
export const fromAction = (env: Record<string, string | undefined>): boolean => env['VAPC_ACTION'] === 'true';
