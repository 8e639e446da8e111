import type { Command } from 'commander';
import { buildDocs, bundleSpec, lintSpec } from '../../build/redocly.js';
import { paths } from '../../paths.js';
import { environmentGuard } from '../../secrets/guard.js';
import { ExitCode, type CommandContext } from '../io.js';

/** vapc lint, vapc build, vapc docs: thin handlers over src/build. */
export function registerSpecCommands(program: Command, { io, exit }: CommandContext): void {
  program
    .command('lint')
    .description(
      'lint the spec with Redocly and the contract rules of redocly.yaml (exit 1 on any error or warning, 2 when the spec cannot be read)',
    )
    .option('--spec <file>', 'OpenAPI document to lint', paths.specSource)
    .action(async (opts: { spec: string }) => {
      // No --allow-ref-host here: Redocly would fetch an allowed $ref again itself, following
      // redirects and resolving the host anew, so lint takes local $refs only.
      const result = await lintSpec(opts.spec);
      // Findings quote the spec (names, paths): untrusted text, guarded like vapc diff's output.
      const guard = environmentGuard(io.env);
      const say = (text: string) => io.stdout(guard.block(text));
      if (result.output) say(`${result.output}\n`);
      say(
        result.ok
          ? `lint: ${opts.spec} is clean\n`
          : `lint: ${result.errors} error(s), ${result.warnings} warning(s)\n`,
      );
      exit(result.ok ? ExitCode.ok : ExitCode.failed);
    });

  program
    .command('build')
    .description('bundle the spec to dist/openapi.{yaml,json} and build the HTML docs')
    .option('--spec <file>', 'OpenAPI document to bundle', paths.specSource)
    .action(async (opts: { spec: string }) => {
      const bundle = await bundleSpec(opts.spec);
      io.stdout(`bundle: ${bundle.operations} operations -> ${bundle.yamlPath}, ${bundle.jsonPath}\n`);
      const docs = await buildDocs(opts.spec);
      io.stdout(`docs: ${docs.htmlPath} (${Math.round(docs.bytes / 1024)} KiB)\n`);
    });

  program
    .command('docs')
    .description('build the self-contained HTML reference (works offline)')
    .option('--spec <file>', 'OpenAPI document', paths.specSource)
    .option('-o, --output <file>', 'where to write the HTML page', paths.docsHtml)
    .action(async (opts: { spec: string; output: string }) => {
      const docs = await buildDocs(opts.spec, opts.output);
      io.stdout(`docs: ${docs.htmlPath} (${Math.round(docs.bytes / 1024)} KiB)\n`);
    });
}
