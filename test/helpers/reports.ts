import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunReport } from '../../src/results/model.js';

export const FIXTURES = join(process.cwd(), 'test', 'fixtures', 'reports');

export function fixture(name: 'passing-run' | 'failing-run' | 'secrets-run'): RunReport {
  return JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as RunReport;
}

/** Every secret value planted in secrets-run.json. */
export const PLANTED_SECRETS = [
  'sk_live_RotatedKey0123456789',
  'sk_live_OldKey9876543210',
  'sk_test_InputKey55555',
  'sk_live_QueryKey4444',
  'usr_secret_4242',
  'inv_tok_BodyToken777',
  'sk_live_BodyKey888888',
  'sess_Cookie0000',
  'sk_live_EchoedKey111111',
  'inv_tok_InviteSecret999',
  'sk_live_LowerCaseKey2222',
  'at_Nested3333333',
];

/** The planted secrets that appear in `text` (also URL- or JSON-escaped forms, by their distinctive tail). */
export function leaks(text: string): string[] {
  return PLANTED_SECRETS.filter((s) => text.includes(s) || text.includes(s.slice(-8)));
}
