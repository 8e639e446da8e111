import { describe, expect, it } from 'vitest';
import { gateSettingsIn } from '../../../src/config/settings.js';

describe('gateSettingsIn', () => {
  it("lists the gate settings a config file sets in the file's order (the refusal names the first line)", () => {
    const keys = {
      suites: { key: 'suite', line: 3 },
      dryRun: { key: 'dry_run', line: 2 },
      includeDestructive: { key: 'include_destructive' },
      rpm: { key: 'rpm', line: 1 },
    };
    expect(gateSettingsIn({ keys }).map((g) => g.key)).toEqual(['dry_run', 'suite', 'include_destructive']);
  });
});
