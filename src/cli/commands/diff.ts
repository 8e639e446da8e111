import { appendFileSync } from 'node:fs';
import type { Command } from 'commander';
import { VapcError } from '../../errors.js';
import { diffDocuments, requiredBump, summarizeChanges } from '../../diff/index.js';
import { renderAnnotations, renderJson, renderMarkdown, renderText, type DiffReport } from '../../diff/format.js';
import { SourceLocator } from '../../diff/locate.js';
import { loadSpecSource, type SpecSource } from '../../diff/source.js';
import { checkVersion } from '../../diff/version.js';
import { environmentGuard } from '../../secrets/guard.js';
import { ExitCode, type CommandContext } from '../io.js';

const FORMATS = ['text', 'json', 'markdown'] as const;
type Format = (typeof FORMATS)[number];

interface DiffFlags {
  format?: string;
  checkVersion?: boolean;
  allowRefHost?: string[];
}

/** Collects a repeated option's values. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

const versionOf = (source: SpecSource): string => {
  const info = source.document['info'];
  return typeof info === 'object' && info !== null && !Array.isArray(info) ? String(info['version'] ?? '') : '';
};

async function runDiff(baseArg: string, headArg: string, flags: DiffFlags, ctx: CommandContext): Promise<void> {
  const format = (flags.format ?? 'text') as Format;
  if (!FORMATS.includes(format))
    throw new VapcError('E_USAGE', `--format must be one of ${FORMATS.join(', ')} (got ${flags.format})`);
  const load = { allowRefHosts: flags.allowRefHost ?? [] };
  // Spec text is untrusted: every line printed is made printable, cannot start a workflow
  // command, and holds no credential or token of the environment (src/secrets/guard.ts).
  const guard = environmentGuard(ctx.io.env);
  const base = await loadSpecSource(baseArg, process.cwd(), load);
  let head: SpecSource | undefined;
  try {
    head = await loadSpecSource(headArg, process.cwd(), load);
    const changes = diffDocuments(base.document, head.document);
    const report: DiffReport = { base: baseArg, head: headArg, changes, summary: summarizeChanges(changes) };
    const bump = requiredBump(changes);
    const out =
      format === 'json'
        ? renderJson(report)
        : format === 'markdown'
          ? renderMarkdown(report, bump)
          : renderText(report, bump);
    ctx.io.stdout(format === 'json' ? guard.json(out) : format === 'markdown' ? guard.markdown(out) : guard.block(out));
    if (ctx.io.env['GITHUB_ACTIONS'] === 'true') {
      const heads = new SourceLocator(head.rootFile);
      const bases = new SourceLocator(base.rootFile);
      const h = head;
      // vapc's own workflow commands: their spec text is made printable and escaped by renderAnnotations.
      ctx.io.stdout(
        guard.secrets.scrub(
          renderAnnotations(changes, (c) => {
            const removed = /removed/.test(c.id);
            const where = removed ? bases.locate(c.pointer) : heads.locate(c.pointer);
            return where ? { file: (removed ? base : h).displayPath(where.file), line: where.line } : undefined;
          }),
        ),
      );
      const summaryFile = ctx.io.env['GITHUB_STEP_SUMMARY'];
      if (summaryFile) appendFileSync(summaryFile, guard.markdown(renderMarkdown(report, bump)));
    }
    let failed = report.summary.breaking > 0;
    if (flags.checkVersion) {
      const verdict = checkVersion(versionOf(base), versionOf(head), bump);
      (format === 'json' ? ctx.io.stderr : ctx.io.stdout)(guard.line(`version: ${verdict.message}`));
      if (!verdict.ok) failed = true;
    }
    ctx.exit(failed ? ExitCode.failed : ExitCode.ok);
  } finally {
    base.dispose();
    head?.dispose();
  }
}

export function registerDiffCommand(program: Command, ctx: CommandContext): void {
  program
    .command('diff')
    .description(
      'classify the changes between two versions of the spec (files, directories or git revisions of spec/); exit 1 on a breaking change',
    )
    .argument('<base>', 'the older spec: a file, a directory or a git revision (e.g. origin/main)')
    .argument('<head>', 'the newer spec: a file, a directory or a git revision (e.g. HEAD)')
    .option('--format <format>', 'text, json or markdown', 'text')
    .option('--check-version', 'also fail when info.version does not move as semantic versioning requires')
    .option(
      '--allow-ref-host <host>',
      'resolve http(s) $refs to this host (repeatable; public addresses only, no redirects); none by default',
      collect,
    )
    .action(async (baseArg: string, headArg: string, flags: DiffFlags) => runDiff(baseArg, headArg, flags, ctx));
}
