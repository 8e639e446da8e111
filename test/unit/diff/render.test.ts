/**
 * What `vapc diff` prints and decides, in-process (test/unit/diff/cli.test.ts runs the command
 * itself, too slow and cwd-changing for a mutation run): the text, Markdown and annotation
 * renderings (grouping, ordering, the spread of one shared change, escaping of spec text), the
 * version verdict, the focus of `vapc run --changed-since`, and the summary and bump of a list of
 * changes.
 */
import { describe, expect, it } from 'vitest';
import { requiredBump, summarizeChanges, touchedOperations, type Change } from '../../../src/diff/index.js';
import { renderFocus, selectFocus, isSmoke, type FocusOperation } from '../../../src/diff/focus.js';
import {
  renderAnnotations,
  renderJson,
  renderMarkdown,
  renderText,
  spreadChanges,
  SPREAD_MIN_OPERATIONS,
  summaryLine,
  type DiffReport,
} from '../../../src/diff/format.js';
import { RULES, type RuleId } from '../../../src/diff/rules.js';
import { bumpBetween, checkVersion } from '../../../src/diff/version.js';

const change = (
  id: RuleId,
  operation: string,
  message = `${id} on ${operation || 'the document'}`,
  pointer = '/x',
): Change => ({
  id,
  level: RULES[id].level,
  breaks: [...RULES[id].breaks],
  operation,
  pointer,
  message,
});
const report = (changes: Change[]): DiffReport => ({
  base: 'v1',
  head: 'v2',
  changes,
  summary: summarizeChanges(changes),
});

describe('summary and bump', () => {
  it('counts each level; the bump is the largest any change needs', () => {
    const changes = [
      change('operation-removed', 'GET /a'),
      change('operation-added', 'GET /b'),
      change('operation-deprecated', 'GET /c'),
      change('operation-added', 'GET /d'),
    ];
    expect(summarizeChanges(changes)).toEqual({ breaking: 1, warning: 1, info: 2 });
    expect(requiredBump(changes)).toBe('major');
    expect(requiredBump(changes.slice(1))).toBe('minor');
    expect(requiredBump([change('description-changed', 'GET /a')])).toBe('patch');
    expect(requiredBump([])).toBe('none');
  });

  it('touched operations: behavioural changes only; a document-wide one touches all', () => {
    const touched = touchedOperations([
      change('operation-added', 'GET /b'),
      change('description-changed', 'GET /a'),
      change('operation-removed', 'GET /c'),
    ]);
    expect(touched).toEqual({ operations: new Set(['GET /b', 'GET /c']), all: false });
    expect(touchedOperations([change('server-removed', '')]).all).toBe(true);
    expect(touchedOperations([change('description-changed', '')])).toEqual({ operations: new Set(), all: false });
  });

  it('summaryLine names the counts and the bump', () => {
    expect(summaryLine({ breaking: 1, warning: 2, info: 3 }, 'major')).toBe(
      '1 breaking, 2 warning, 3 info; needs a major version bump',
    );
    expect(summaryLine({ breaking: 0, warning: 0, info: 0 }, 'none')).toBe(
      '0 breaking, 0 warning, 0 info; no version bump needed',
    );
  });
});

describe('info.version', () => {
  it('bumpBetween: the first component that grew, lower when one went back, none when equal, invalid when not semver', () => {
    expect(bumpBetween('1.2.3', '2.0.0')).toBe('major');
    expect(bumpBetween('1.2.3', '1.3.0')).toBe('minor');
    expect(bumpBetween('1.2.3', '1.2.4')).toBe('patch');
    expect(bumpBetween('1.2.3', '1.2.3')).toBe('none');
    expect(bumpBetween('1.2.3', '1.1.9')).toBe('lower');
    expect(bumpBetween('2.0.0', '1.9.9')).toBe('lower');
    expect(bumpBetween('1.2.3', '1.2.2')).toBe('lower');
    expect(bumpBetween('v1.2.3', ' 1.2.4-rc.1 ')).toBe('patch');
    expect(bumpBetween('1.2.3', '1.2.4+build')).toBe('patch');
    expect(bumpBetween('1.10.0', '1.9.0')).toBe('lower');
    expect(bumpBetween('10.0.0', '10.0.12')).toBe('patch');
    for (const bad of ['1.2', '1.2.3.4', 'x1.2.3', '1.2.3x', 'one'])
      expect(bumpBetween('1.2.3', bad), bad).toBe('invalid');
    expect(bumpBetween('1.2', '1.2.3')).toBe('invalid');
  });

  it('checkVersion: ok when the step is at least what the changes need, with a sentence either way', () => {
    expect(checkVersion('1.0.0', '2.0.0', 'major')).toEqual({
      ok: true,
      message: 'info.version 1.0.0 -> 2.0.0 is a major step; the changes need a major bump',
    });
    expect(checkVersion('1.0.0', '1.1.0', 'patch')).toEqual({
      ok: true,
      message: 'info.version 1.0.0 -> 1.1.0 is a minor step; the changes need a patch bump',
    });
    expect(checkVersion('1.0.0', '1.0.0', 'none')).toEqual({
      ok: true,
      message: 'info.version 1.0.0 -> 1.0.0 is a none step; the changes need none',
    });
    expect(checkVersion('1.0.0', '1.0.1', 'minor')).toEqual({
      ok: false,
      message: 'info.version 1.0.0 -> 1.0.1 is a patch step, but the changes need a minor bump',
    });
    expect(checkVersion('1.0.0', '1.0.0', 'patch')).toEqual({
      ok: false,
      message: 'info.version 1.0.0 -> 1.0.0 is unchanged, but the changes need a patch bump',
    });
    expect(checkVersion('1.1.0', '2.0.0', 'major').ok).toBe(true);
    expect(checkVersion('1.1.0', '1.2.0', 'minor').ok).toBe(true);
    expect(checkVersion('1.1.0', '1.1.1', 'patch').ok).toBe(true);
    expect(checkVersion('2.0.0', '1.0.0', 'none')).toEqual({
      ok: false,
      message: 'info.version went back from 2.0.0 to 1.0.0',
    });
    expect(checkVersion('2.0', '2.1', 'none')).toEqual({
      ok: false,
      message: 'info.version 2.0 -> 2.1 is not semantic versioning (MAJOR.MINOR.PATCH)',
    });
  });
});

describe('the focus of a run', () => {
  const ops: FocusOperation[] = [
    { label: 'GET /health', method: 'get', hasParameters: false, hasBody: false },
    { label: 'GET /calls', method: 'GET', hasParameters: true, hasBody: false },
    { label: 'POST /campaign', method: 'POST', hasParameters: false, hasBody: true },
    { label: 'DELETE /x', method: 'DELETE', hasParameters: false, hasBody: false },
    { label: 'GET /body', method: 'GET', hasParameters: false, hasBody: true },
  ];

  it('the smoke set: GET without parameters or body, in any case', () => {
    expect(ops.map(isSmoke)).toEqual([true, false, false, false, false]);
  });

  it('the operations a behavioural change touches, with its rule ids once each, plus the smoke set', () => {
    const focus = selectFocus(
      'main',
      [
        change('operation-deprecated', 'GET /calls'),
        change('operation-id-changed', 'GET /calls'),
        change('operation-deprecated', 'GET /calls', 'again'),
        change('description-changed', 'POST /campaign'),
      ],
      ops,
    );
    expect(focus).toEqual({
      changed_since: 'main',
      operations: [
        { operation: 'GET /health', reasons: ['smoke'] },
        { operation: 'GET /calls', reasons: ['operation-deprecated', 'operation-id-changed'] },
      ],
      total_operations: 5,
    });
    // A changed smoke operation is there for its change, not as smoke.
    expect(selectFocus('main', [change('operation-deprecated', 'GET /health')], ops).operations).toEqual([
      { operation: 'GET /health', reasons: ['operation-deprecated'] },
    ]);
  });

  it('a document-wide behavioural change selects every operation', () => {
    const focus = selectFocus('v1', [change('server-removed', '')], ops);
    expect(focus.operations.map((o) => o.operation)).toEqual(ops.map((o) => o.label));
    expect(focus.operations.every((o) => o.reasons.join() === 'server-removed')).toBe(true);
  });

  it('renderFocus: the counts line, then one line per operation with its reasons', () => {
    const focus = selectFocus(
      'main',
      [
        change('operation-deprecated', 'GET /calls'),
        change('operation-id-changed', 'GET /calls'),
        change('operation-removed', 'DELETE /x'),
      ],
      ops,
    );
    expect(renderFocus(focus)).toBe(
      'changed since main: 2 changed operation(s) + 1 smoke = 3 of 5 operations\n  GET /health: smoke\n  GET /calls: operation-deprecated, operation-id-changed\n  DELETE /x: operation-removed\n',
    );
  });
});

describe('spreadChanges', () => {
  it(`one change in ${SPREAD_MIN_OPERATIONS} or more operations is said once; fewer stay per operation; document-wide ones never spread`, () => {
    const shared = ['GET /c', 'GET /a', 'GET /b', 'GET /a'].map((op) =>
      change('response-header-removed' as RuleId, op, 'X-Rate removed'),
    );
    const two = ['GET /a', 'GET /b'].map((op) => change('operation-deprecated', op, 'deprecated'));
    const doc = ['', '', ''].map(() => change('server-removed', '', 'server gone'));
    const { spread, rest } = spreadChanges([...shared, ...two, ...doc]);
    expect(spread).toEqual([{ change: shared[0], operations: ['GET /a', 'GET /b', 'GET /c'] }]);
    expect(rest).toEqual([...two, ...doc]);
  });

  it('the same rule with other words is another change; spread ones are ordered by level, then message', () => {
    const ops = ['GET /a', 'GET /b', 'GET /c'];
    const info = ops.map((op) => change('operation-added', op, 'a added'));
    const warnB = ops.map((op) => change('operation-deprecated', op, 'b deprecated'));
    const warnA = ops.map((op) => change('operation-deprecated', op, 'a deprecated'));
    const { spread, rest } = spreadChanges([...info, ...warnB, ...warnA]);
    expect(spread.map((s) => s.change.message)).toEqual(['a deprecated', 'b deprecated', 'a added']);
    expect(rest).toEqual([]);
  });
});

describe('renderText', () => {
  it('no changes', () => {
    expect(renderText(report([]), 'none')).toBe(
      'vapc diff v1 -> v2\n  no changes\n\n0 breaking, 0 warning, 0 info; no version bump needed\n',
    );
  });

  it('groups by operation, breaking groups first then by name, the document last among equals; breaks named', () => {
    const changes = [
      change('operation-added', 'GET /z', 'z added'),
      change('operation-deprecated', 'GET /b', 'b deprecated'),
      change('operation-removed', 'GET /y', 'y removed'),
      change('description-changed', '', 'docs'),
      change('operation-id-changed', 'GET /a', 'a renamed'),
    ];
    expect(renderText(report(changes), 'major')).toBe(
      [
        'vapc diff v1 -> v2',
        '',
        'GET /y',
        '  breaking operation-removed: y removed [breaks clients]',
        '',
        'GET /a',
        '  warning  operation-id-changed: a renamed [breaks clients]',
        '',
        'GET /b',
        '  warning  operation-deprecated: b deprecated [breaks clients]',
        '',
        '(whole document)',
        '  info     description-changed: docs',
        '',
        'GET /z',
        '  info     operation-added: z added',
        '',
        '1 breaking, 2 warning, 2 info; needs a major version bump',
        '',
      ].join('\n'),
    );
  });

  it('a group is as bad as its worst change', () => {
    const text = renderText(
      report([
        change('operation-added', 'GET /a', 'a added'),
        change('operation-removed', 'GET /a', 'a removed'),
        change('operation-deprecated', 'GET /b', 'b deprecated'),
      ]),
      'major',
    );
    expect(text.indexOf('\nGET /a\n')).toBeLessThan(text.indexOf('\nGET /b\n'));
    const md = renderMarkdown(
      report([{ ...change('operation-removed', 'GET /a', 'gone'), breaks: ['clients', 'implementations'] }]),
      'major',
    );
    expect(md).toContain('| breaking | `operation-removed` | gone | clients, implementations |');
    const spread = ['GET /a', 'GET /b', 'GET /c'].map((op) => ({
      ...change('operation-removed', op, 'gone'),
      breaks: ['clients', 'implementations'] as Change['breaks'],
    }));
    expect(renderMarkdown(report(spread), 'major')).toContain(
      '| breaking | `operation-removed` | gone | 3: GET /a, GET /b, GET /c | clients, implementations |',
    );
  });

  it('a spread change is printed once with its operations; both parties are named; spec text is escaped', () => {
    const both = (['GET /a', 'GET /b', 'GET /c'] as const).map((op) =>
      change('request-parameter-style-changed', op, 'style of q\x1b changed'),
    );
    both.forEach((c) => (c.breaks = ['clients', 'implementations']));
    const text = renderText({ ...report(both), base: 'main\n' }, 'major');
    expect(text).toBe(
      [
        'vapc diff main\\n -> v2',
        '',
        'The same change in several operations (a shared definition changed)',
        '  breaking request-parameter-style-changed: style of q\\x1b changed [breaks clients and implementations]',
        '           in 3 operations: GET /a, GET /b, GET /c',
        '',
        '3 breaking, 0 warning, 0 info; needs a major version bump',
        '',
      ].join('\n'),
    );
  });

  it('renderJson: the report as indented JSON, one line feed at the end', () => {
    const r = report([change('operation-added', 'GET /z')]);
    expect(renderJson(r)).toBe(`${JSON.stringify(r, null, 2)}\n`);
  });
});

describe('renderMarkdown', () => {
  it('no changes: a green headline and a sentence', () => {
    expect(renderMarkdown(report([]), 'none')).toBe(
      '### ✅ API contract changes: v1 → v2\n\n0 breaking, 0 warning, 0 info; no version bump needed\n\nNo changes.\n',
    );
  });

  it('a table per operation, a warning headline without breaking changes, spec text escaped', () => {
    const md = renderMarkdown(
      report([
        change('operation-deprecated', 'GET /a_b', '**bold** <img>'),
        change('operation-added', 'GET /c', 'added'),
      ]),
      'minor',
    );
    expect(md).toBe(
      [
        '### ⚠️ API contract changes: v1 → v2',
        '',
        '0 breaking, 1 warning, 1 info; needs a minor version bump',
        '',
        '#### GET /a\\_b',
        '',
        '| level | rule | change | breaks |',
        '|---|---|---|---|',
        '| warning | `operation-deprecated` | \\*\\*bold\\*\\* &lt;img&gt; | clients |',
        '',
        '#### GET /c',
        '',
        '| level | rule | change | breaks |',
        '|---|---|---|---|',
        '| info | `operation-added` | added | – |',
        '',
      ].join('\n'),
    );
  });

  it('breaking: a red headline; a spread change in its own table with the operations counted', () => {
    const spread = ['GET /a', 'GET /b', 'GET /c'].map((op) => change('operation-removed', op, 'gone'));
    const md = renderMarkdown(report([...spread, change('operation-added', 'GET /d', 'new')]), 'major');
    expect(md.split('\n').slice(0, 10)).toEqual([
      '### ❌ API contract changes: v1 → v2',
      '',
      '3 breaking, 0 warning, 1 info; needs a major version bump',
      '',
      '#### The same change in several operations (a shared definition changed)',
      '',
      '| level | rule | change | operations | breaks |',
      '|---|---|---|---|---|',
      '| breaking | `operation-removed` | gone | 3: GET /a, GET /b, GET /c | clients |',
      '',
    ]);
    expect(md.split('\n').slice(10)).toEqual([
      '#### GET /d',
      '',
      '| level | rule | change | breaks |',
      '|---|---|---|---|',
      '| info | `operation-added` | new | – |',
      '',
    ]);
    const infoSpread = ['GET /a', 'GET /b', 'GET /c'].map((op) => change('operation-added', op, 'new'));
    expect(renderMarkdown(report(infoSpread), 'minor')).toContain(
      '| info | `operation-added` | new | 3: GET /a, GET /b, GET /c | – |',
    );
  });
});

describe('renderAnnotations', () => {
  const at = (file: string, line: number) => () => ({ file, line });

  it('one command per change: error, warning or notice, on its line when known, properties escaped', () => {
    const out = renderAnnotations(
      [
        change('operation-removed', 'GET /a', 'a: removed, 100%'),
        change('operation-deprecated', 'GET /b', 'b'),
        change('operation-added', '', 'new\nline'),
      ],
      (c) => (c.operation === 'GET /a' ? { file: 'spec/paths,a:b.yaml', line: 7 } : undefined),
    );
    expect(out).toBe(
      [
        '::error file=spec/paths%2Ca%3Ab.yaml,line=7,title=operation-removed GET /a::a: removed, 100%25 [breaks clients]',
        '::warning title=operation-deprecated GET /b::b [breaks clients]',
        '::notice title=operation-added::new\\nline',
        '',
      ].join('\n'),
    );
  });

  it('changes of one rule on one line make one annotation naming each message with its operations', () => {
    const changes = [
      change('operation-removed', 'GET /a', 'header gone'),
      change('operation-removed', 'GET /b', 'header gone'),
      change('operation-removed', 'GET /c', 'other'),
      change('operation-removed', '', 'other'),
    ];
    expect(renderAnnotations(changes, at('spec/x.yaml', 3))).toBe(
      '::error file=spec/x.yaml,line=3,title=operation-removed in 4 operations::header gone (GET /a, GET /b); other (GET /c, (whole document)) [breaks clients]\n',
    );
    // Another rule or another line is another annotation; without a line, each change is its own.
    expect(
      renderAnnotations([changes[0]!, change('operation-deprecated', 'GET /b', 'b')], at('spec/x.yaml', 3)).split('\n'),
    ).toHaveLength(3);
    expect(
      renderAnnotations(changes.slice(0, 2), (c) => ({ file: 'f', line: c.operation === 'GET /a' ? 1 : 2 })).split(
        '\n',
      ),
    ).toHaveLength(3);
    expect(renderAnnotations(changes.slice(0, 2), () => undefined).split('\n')).toHaveLength(3);
    expect(renderAnnotations([], () => undefined)).toBe('');
  });
});
