import type { IncomingMessage } from 'node:http';
import { startLoopbackServer, type HostileServer } from './servers.js';

/**
 * Servers that attack the judge rather than the contract (issue 11): they answer the one
 * authenticated read a setup probe makes (GET /users/me) as a working server would, so the run
 * goes on to judge checks, and use every other answer to try to steer vapc's own output: forged
 * workflow commands and terminal escapes, a word taught as a "secret" to erase verdicts, a body
 * full of token-like values, and the caller's own key echoed behind padding.
 */
export const API_KEY = 'sk_live_7f3a9c2e5b814d06a1e8c4f2b7d93e50';
export const USER_ID = 'user_4c1e8a2f9b';

export type Attack =
  | 'injection'
  | 'teach-failed'
  | 'secret-bomb'
  | 'echo-key'
  | 'hostile-discovery'
  | 'echo-escaped'
  | 'echo-encoded'
  | 'blank-commands';

/**
 * Text that forges workflow commands behind Unicode blanks GitHub's runner trims (U+00A0, U+3000,
 * U+2007), and bare URLs and SARIF-style links (issue 32, attacks 6 and 7).
 */
export const BLANK_INJECTION =
  '[text](https://evil.example/l) see https://evil.example/pwn and www.evil.example\n' +
  '\u00a0::warning title=FORGED::behind a no-break space\n\u3000::error title=FORGED::ideographic\n' +
  '\u2007\u200b::add-mask::figure space';

/** Every character of `text` as a JSON \u escape: the same string to a JSON parser, another to a text search. */
export const jsonEscaped = (text: string): string =>
  [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

/** What an attacker writes into text a reporter might print: workflow commands, ANSI and OSC sequences. */
export const INJECTION =
  'X\n::error title=INJECTED::forged annotation\n::add-mask::seed\n::stop-commands::tok\n' +
  '\x1b[2J\x1b[H\x1b]0;owned\x07\x1b[32mPASSED: 0 failed\x1b[0m\r\n%0A::warning::percent-encoded\u202e ' +
  '[click](https://evil.example/x) ![img](https://evil.example/i.png) <img src=x onerror=alert(1)>';

const BOMB_TOKENS = 30_000;
const ECHO_PADDING = [73, 113, 4051, 100];

interface Answer {
  status: number;
  type?: string;
  body: string;
}

const json = (status: number, value: unknown): Answer => ({
  status,
  type: 'application/json',
  body: JSON.stringify(value),
});

function bombBody(): string {
  const items: string[] = [];
  for (let i = 0; i < BOMB_TOKENS; i++) items.push(`{"token":"tk${i.toString(36)}Q9${(i * 7919).toString(36)}"}`);
  return `{"detail":"Invalid credentials","api_key":"k_${'9'.repeat(20)}","items":[${items.join(',')}]}`;
}

function isCurrentUser(req: IncomingMessage): boolean {
  return req.method === 'GET' && (req.url ?? '').split('?')[0] === '/users/me';
}

function hasCredentials(req: IncomingMessage): boolean {
  return req.headers.authorization === `Bearer ${API_KEY}` && req.headers['x-user-id'] === USER_ID;
}

/** The attack each server makes on every request other than an authenticated GET /users/me. */
function attack(kind: Attack, req: IncomingMessage, bomb: () => string, n: number): Answer {
  switch (kind) {
    case 'injection':
      return { status: 401, type: 'text/plain', body: INJECTION };
    case 'teach-failed':
      return json(401, { detail: 'Invalid credentials', token: 'failed', key: 'passed', secret: 'error' });
    case 'secret-bomb':
      return { status: 401, type: 'application/json', body: bomb() };
    case 'echo-key':
      // The key lands across the cuts a reporter or a check might make: 120 and 160 characters into
      // the body, and at the 4 KiB a report keeps.
      return json(401, {
        detail: `Invalid credentials${'.'.repeat(ECHO_PADDING[n % ECHO_PADDING.length]!)}${(req.headers.authorization ?? '').replace(/^bearer\s+/i, '')} for ${req.headers['x-user-id'] ?? ''}`,
      });
    case 'hostile-discovery':
      return json(401, { detail: 'Invalid credentials' });
    case 'echo-escaped': {
      // The key the request carried, spelled escape by escape: JSON.parse reads the key itself.
      const key = (req.headers.authorization ?? '').replace(/^bearer\s+/i, '');
      return {
        status: 401,
        type: 'application/json',
        body: `{"detail":"Invalid credentials for ${jsonEscaped(key)}"}`,
      };
    }
    case 'echo-encoded': {
      const key = (req.headers.authorization ?? '').replace(/^bearer\s+/i, '');
      const b64 = (t: string) => Buffer.from(t).toString('base64');
      return json(401, {
        detail: `Invalid credentials (${b64(key)}) ${Buffer.from(key).toString('hex')}`,
        basic: `Basic ${b64(`user:${key}`)}`,
        url_safe: b64(`ab${key}`).replace(/\+/g, '-').replace(/\//g, '_'),
      });
    }
    case 'blank-commands':
      return { status: 401, type: 'text/plain', body: BLANK_INJECTION };
  }
}

function currentUser(kind: Attack): Answer {
  const org = kind === 'hostile-discovery' ? `org_1\n::error title=FORGED::from discovery\x1b[2J\x1b]0;t\x07` : 'org_1';
  const extra = kind === 'teach-failed' ? { token: 'failed' } : {};
  return json(200, {
    user: { id: USER_ID, email: 'a@example.com', name: 'A', default_org_id: org },
    orgs: [{ id: org, name: 'O', role: 'owner' }],
    ...extra,
  });
}

export type AttackerServer = HostileServer;

export function startAttacker(kind: Attack): Promise<AttackerServer> {
  let cachedBomb: string | undefined;
  const bomb = () => (cachedBomb ??= bombBody());
  return startLoopbackServer((req, res, n) => {
    const answer = isCurrentUser(req) && hasCredentials(req) ? currentUser(kind) : attack(kind, req, bomb, n);
    res.writeHead(answer.status, { 'content-type': answer.type ?? 'application/json' }).end(answer.body);
  });
}
