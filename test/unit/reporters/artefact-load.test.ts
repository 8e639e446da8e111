import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isVapcError } from '../../../src/errors.js';
import { jsonShape, parseReport } from '../../../src/reporters/load.js';
import { mdCell, mdCode, mdFence } from '../../../src/results/printable.js';
import { FIXTURES } from '../../helpers/reports.js';

const failing = () =>
  JSON.parse(readFileSync(join(FIXTURES, 'failing-run.json'), 'utf8')) as Record<string, unknown> & {
    results: Array<Record<string, unknown>>;
  };

describe('the shared Markdown escapers (src/results/printable.ts)', () => {
  it('mdCell leaves no link, image, HTML, emphasis, pipe, line break or control character', () => {
    const out = mdCell('a [x](http://e) ![i](http://e/i.png) <img src=x> **b** | c\n::error::d \u001b[31m');
    expect(out).toBe(
      'a \\[x\\]\\(http&#58;//e\\) \\!\\[i\\]\\(http&#58;//e/i.png\\) &lt;img src=x&gt; \\*\\*b\\*\\* \\| c\\\\n::error::d \\\\x1b\\[31m',
    );
  });

  it('mdCode cannot close its span or a table cell; mdFence cannot be closed by its content', () => {
    expect(mdCode('a`b|c\nd')).toBe("a'b\\|c\\nd");
    const fenced = mdFence('x ```` y', 'sh');
    expect(fenced.startsWith('`````sh\n')).toBe(true);
    expect(fenced.endsWith('\n`````')).toBe(true);
  });
});

describe('parseReport: a report artefact as input', () => {
  it('counts nesting and values without parsing, skipping strings', () => {
    expect(jsonShape('{"a":[1,2,{"b":"[[[,,,"}]}')).toEqual({ depth: 3, nodes: 5 });
  });

  it('keeps a __proto__ key inside a failure input (a generated body vapc sent) as data', () => {
    const r = failing();
    const text = JSON.stringify(r).replace('"expected":', '"input":{"__proto__":{"x":1}},"expected":');
    const report = parseReport(text);
    const input = report.results.flatMap((x) => x.failures ?? []).find((f) => f.input !== undefined)!.input as Record<
      string,
      unknown
    >;
    expect(Object.keys(input)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(input)).toBe(Object.prototype);
  });

  it('drops fields the schema does not know instead of passing them on', () => {
    const r = failing();
    r.results[0]!['extra'] = '\u001b[31m';
    r['unknown_top'] = { a: 1 };
    const report = parseReport(JSON.stringify(r)) as unknown as Record<string, unknown> & {
      results: Array<Record<string, unknown>>;
    };
    expect(report['unknown_top']).toBeUndefined();
    expect(report.results[0]!['extra']).toBeUndefined();
  });

  it('says which field is wrong, in one line', () => {
    const r = failing();
    r.results[2]!['severity'] = 'apocalyptic';
    const error = (() => {
      try {
        return parseReport(JSON.stringify(r), 'x/report.json');
      } catch (e) {
        return e;
      }
    })();
    expect(isVapcError(error) && error.code).toBe('E_CONFIG');
    expect((error as Error).message).toBe(
      'x/report.json is not a vapc report: results[2].severity must be one of critical, major, minor',
    );
  });
});
