/**
 * Runs one `vapc` command in a child process for test/catalog/hostile/artefacts.test.ts and
 * prints `{code, stdout, stderr, ms, rssMb}` as JSON: the exit status, the output (cut to 20 000
 * characters), the time main() took and the process's peak resident memory. A crafted artefact
 * that makes vapc abort (V8 fatal) or balloon is then measured without taking the test worker down.
 */
import { main } from '../../../src/cli/main.js';

const argv = JSON.parse(process.argv[2] ?? '[]') as string[];
let stdout = '';
let stderr = '';
const started = performance.now();
const code = await main(argv, {
  stdout: (t) => void (stdout += t),
  stderr: (t) => void (stderr += t),
  env: {},
  isTTY: false,
});
const ms = performance.now() - started;
const rssMb = process.resourceUsage().maxRSS / 1024;
process.stdout.write(
  JSON.stringify({ code, stdout: stdout.slice(0, 20_000), stderr: stderr.slice(0, 20_000), ms, rssMb }),
);
