/**
 * Child process of test/helpers/cli-child.ts (spec.test.ts, checkout-files.test.ts): runs the CLI's main() in-process for each case given as JSON on
 * argv[2] ({ name, argv, cwd, env }[]) and prints, as one JSON line, every case's exit status,
 * output and duration plus the process's peak RSS, so the test can bound time and memory and
 * look for the secrets it put in this process's environment (read by a `$ref` to /proc/self/environ).
 */
import { main, type CliIo } from '../../../src/cli/main.js';

interface ChildCase {
  name: string;
  argv: string[];
  cwd: string;
  env?: Record<string, string>;
}

const cases = JSON.parse(process.argv[2] ?? '[]') as ChildCase[];
const results: Array<{ name: string; status: number; stdout: string; stderr: string; ms: number }> = [];
for (const c of cases) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env: c.env ?? {},
    isTTY: false,
  };
  process.chdir(c.cwd);
  const started = Date.now();
  const status = await main(c.argv, io);
  results.push({ name: c.name, status, stdout, stderr, ms: Date.now() - started });
}
process.stdout.write(`${JSON.stringify({ results, maxRssKb: process.resourceUsage().maxRSS })}\n`);
