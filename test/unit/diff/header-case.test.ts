/**
 * `vapc diff` on two small spec files whose only difference is the case of header names (a
 * parameter `in: header` and a response header): HTTP header names are case-insensitive (RFC 9110
 * §5.1), so the wire is the same. Before the fix this printed one `unclassified-change` for the
 * operation ("changed in a way no rule classifies"); now each spelling is a classified info change
 * that needs a patch bump and touches no check. A real rename (another name) is still a removal and
 * an addition, as it always was.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';

const spec = (param: string, header: string): string => `openapi: 3.1.0
info: { title: t, version: 1.0.0 }
paths:
  /calls:
    get:
      operationId: listCalls
      parameters:
        - { name: ${param}, in: header, required: true, schema: { type: string } }
      responses:
        '200':
          description: ok
          headers:
            ${header}: { required: true, schema: { type: integer } }
          content:
            application/json: { schema: { type: object } }
`;

const dir = mkdtempSync(join(tmpdir(), 'vapc-diff-header-case-'));
const file = (name: string, text: string): string => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const base = file('base.yaml', spec('X-User-ID', 'X-RateLimit-Limit'));

async function diff(head: string, format = 'text'): Promise<{ code: number; out: string }> {
  let out = '';
  const io: CliIo = { stdout: (t) => void (out += t), stderr: (t) => void (out += t), env: {}, isTTY: false };
  const code = await main(['diff', base, head, '--format', format], io);
  return { code, out };
}

describe('vapc diff: a header name that differs only in case', () => {
  it('is a classified info change per header (patch), never unclassified', async () => {
    const head = file('case.yaml', spec('x-user-id', 'x-ratelimit-limit'));
    const text = await diff(head);
    expect(text.code).toBe(0);
    expect(text.out).not.toContain('unclassified');
    expect(text.out).toContain(
      'info     header-name-case-changed: header parameter `X-User-ID` now spelt `x-user-id` (header names are case-insensitive: the wire is the same)',
    );
    expect(text.out).toContain(
      'info     header-name-case-changed: response 200 header X-RateLimit-Limit now spelt x-ratelimit-limit (header names are case-insensitive: the wire is the same)',
    );
    expect(text.out).toContain('0 breaking, 0 warning, 2 info; needs a patch version bump');
    const json = JSON.parse((await diff(head, 'json')).out) as { changes: Array<Record<string, unknown>> };
    expect(json.changes).toEqual([
      {
        id: 'header-name-case-changed',
        level: 'info',
        breaks: [],
        operation: 'GET /calls',
        pointer: '/paths/~1calls/get/parameters/0/name',
        message:
          'header parameter `X-User-ID` now spelt `x-user-id` (header names are case-insensitive: the wire is the same)',
      },
      {
        id: 'header-name-case-changed',
        level: 'info',
        breaks: [],
        operation: 'GET /calls',
        pointer: '/paths/~1calls/get/responses/200/headers/x-ratelimit-limit',
        message:
          'response 200 header X-RateLimit-Limit now spelt x-ratelimit-limit (header names are case-insensitive: the wire is the same)',
      },
    ]);
  });

  it('a real rename (another name) is still a header removed and one added', async () => {
    const { code, out } = await diff(file('renamed.yaml', spec('X-Account-ID', 'X-RateLimit-Quota')));
    expect(code).toBe(1);
    expect(out).toContain(
      [
        'GET /calls',
        '  breaking request-parameter-added-required: required header parameter `X-Account-ID` added [breaks clients]',
        '  breaking ratelimit-header-removed: response 200 header X-RateLimit-Limit removed [breaks clients]',
        '  warning  request-parameter-removed: header parameter `X-User-ID` removed [breaks clients]',
        '  warning  ratelimit-header-added: response 200 header X-RateLimit-Quota added (required) [breaks implementations]',
        '',
        '2 breaking, 2 warning, 0 info; needs a major version bump',
      ].join('\n'),
    );
    expect(out).not.toContain('header-name-case-changed');
  });
});
