/** checkProperty with no case to try judges nothing: it says so instead of returning a pass. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CheckContext } from '../../../src/checks/check.js';
import { OK } from '../../../src/checks/outcomes.js';
import { checkProperty } from '../../../src/checks/property.js';

const ctx = { seed: 7 } as CheckContext;

describe('checkProperty without cases', () => {
  it('no example and no random case: unjudged, with why', async () => {
    const verdict = await checkProperty(ctx, fc.integer(), async () => OK, { numRuns: 0 });
    expect(verdict).toEqual({ ok: true, unjudged: 'no case was tried', why: { cause: 'runner' } });
  });

  it('one case judged: a plain OK', async () => {
    const verdict = await checkProperty(ctx, fc.integer(), async () => OK, { numRuns: 0, examples: [1] });
    expect(verdict).toEqual(OK);
  });
});
