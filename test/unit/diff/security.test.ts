/**
 * The security and server rules of `vapc diff` (src/diff/security.ts) on small documents, each
 * branch with what it says and where it points: an alternative kept, loosened, tightened, removed
 * or added; a scheme that changes how the credential is sent (an API-key header spelt in another
 * case does not); servers removed, added, re-described and their variables.
 */
import { describe, expect, it } from 'vitest';
import { compareSecurity, compareServers } from '../../../src/diff/security.js';
import { ChangeSink, type Json, type JsonObject } from '../../../src/diff/types.js';

const SCHEMES: JsonObject = {
  Bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'opaque', description: 'a key' },
  User: { type: 'apiKey', in: 'header', name: 'X-User-ID' },
  Sig: { type: 'apiKey', in: 'header', name: 'X-Sig' },
};

function security(before: Json, after: Json, headSchemes: JsonObject = SCHEMES) {
  const sink = new ChangeSink();
  compareSecurity(
    { requirement: before, schemes: SCHEMES, ptr: '/b/security' },
    { requirement: after, schemes: headSchemes, ptr: '/h/security' },
    sink,
    'GET /x',
  );
  return sink.changes.map((c) => `${c.id} ${c.pointer} ${c.message}`);
}

describe('compareSecurity', () => {
  it('the same alternatives in any order, and a scheme kept as sent: nothing', () => {
    expect(security([{ Bearer: [], User: [] }, {}], [{}, { User: [], Bearer: [] }])).toEqual([]);
    expect(
      security([{ Bearer: [] }], [{ Bearer: [] }], {
        ...SCHEMES,
        Bearer: { ...(SCHEMES['Bearer'] as JsonObject), description: 'reworded' },
      }),
    ).toEqual([]);
    expect(security(undefined as unknown as Json, 'x')).toEqual([]);
  });

  it('an alternative that needs fewer schemes: scheme-removed, naming what is dropped', () => {
    expect(security([{ Bearer: [], User: [] }], [{ Bearer: [] }])).toEqual([
      'security-scheme-removed /h/security security: User no longer needed with Bearer+User',
    ]);
  });

  it('an alternative that needs more: scheme-added, naming what is added and what it was', () => {
    expect(security([{ Bearer: [] }], [{ Bearer: [], Sig: [], User: [] }])).toEqual([
      'security-scheme-added /h/security security: Sig, User now also required (was Bearer)',
    ]);
  });

  it('an alternative gone with nothing like it: requirement-removed at BASE; a new one: requirement-added at HEAD', () => {
    expect(security([{ Bearer: [] }, {}], [{ Bearer: [] }])).toEqual([
      'security-requirement-removed /b/security security: the alternative (none) is no longer accepted',
    ]);
    expect(security([{ Bearer: [] }], [{ Bearer: [] }, { User: [] }])).toEqual([
      'security-requirement-added /h/security security: the alternative User is now accepted',
    ]);
    expect(security([{ User: [] }], [{ Sig: [] }])).toEqual([
      'security-requirement-removed /b/security security: the alternative User is no longer accepted',
      'security-requirement-added /h/security security: the alternative Sig is now accepted',
    ]);
  });

  it('an alternative HEAD keeps as it was is not taken for a looser or stricter match of another', () => {
    // BASE: Bearer+User and Bearer. HEAD keeps Bearer: Bearer+User is gone, not loosened to Bearer.
    expect(security([{ Bearer: [], User: [] }, { Bearer: [] }], [{ Bearer: [] }])).toEqual([
      'security-requirement-removed /b/security security: the alternative Bearer+User is no longer accepted',
    ]);
    // BASE: Bearer and Bearer+User. HEAD keeps Bearer+User: Bearer is gone, not tightened to it.
    expect(security([{ Bearer: [] }, { Bearer: [], User: [] }], [{ Bearer: [], User: [] }])).toEqual([
      'security-requirement-removed /b/security security: the alternative Bearer is no longer accepted',
    ]);
    // One HEAD alternative answers one BASE alternative only.
    expect(
      security(
        [
          { Bearer: [], User: [] },
          { Bearer: [], Sig: [] },
        ],
        [{ Bearer: [] }],
      ),
    ).toEqual([
      'security-scheme-removed /h/security security: User no longer needed with Bearer+User',
      'security-requirement-removed /b/security security: the alternative Bearer+Sig is no longer accepted',
    ]);
    // A looser match is preferred to a stricter one; the stricter one is then new.
    expect(security([{ Bearer: [], User: [] }], [{ Bearer: [] }, { Bearer: [], User: [], Sig: [] }])).toEqual([
      'security-scheme-removed /h/security security: User no longer needed with Bearer+User',
      'security-requirement-added /h/security security: the alternative Bearer+Sig+User is now accepted',
    ]);
  });

  it('a scheme kept in use that changes how the credential is sent: scheme-changed on the component, each wire field', () => {
    const changed = (over: JsonObject) =>
      security([{ User: [], Bearer: [] }], [{ User: [], Bearer: [] }], {
        ...SCHEMES,
        Bearer: { ...(SCHEMES['Bearer'] as JsonObject), ...over },
      });
    for (const over of [
      { type: 'apiKey' },
      { scheme: 'basic' },
      { in: 'query' },
      { name: 'Auth' },
      { bearerFormat: 'JWT' },
    ] as JsonObject[]) {
      expect(changed(over), JSON.stringify(over)).toEqual([
        'security-scheme-changed /components/securitySchemes/Bearer security scheme Bearer changed how the credential is sent',
      ]);
    }
    const odd = new ChangeSink();
    compareSecurity(
      { requirement: [{ 'a/b': [] }], schemes: { 'a/b': 'x' }, ptr: '' },
      { requirement: [{ 'a/b': [] }], schemes: { 'a/b': 'y' }, ptr: '' },
      odd,
      'GET /x',
    );
    expect(odd.changes.map((c) => c.pointer)).toEqual(['/components/securitySchemes/a~1b']);
    // A scheme no longer used by the operation is not compared.
    expect(
      security([{ Bearer: [] }, { User: [] }], [{ Bearer: [] }], {
        ...SCHEMES,
        User: { type: 'http', scheme: 'basic' },
      }),
    ).toEqual(['security-requirement-removed /b/security security: the alternative User is no longer accepted']);
  });

  it('an API-key header spelt in another case is the same header (RFC 9110 §5.1); a query or cookie name is not', () => {
    const user = (over: JsonObject) =>
      security([{ User: [] }], [{ User: [] }], { ...SCHEMES, User: { ...(SCHEMES['User'] as JsonObject), ...over } });
    expect(user({ name: 'x-user-id' })).toEqual([
      'header-name-case-changed /components/securitySchemes/User/name security scheme User: header X-User-ID now spelt x-user-id (header names are case-insensitive: the wire is the same)',
    ]);
    // Another name is another header, whatever the case.
    expect(user({ name: 'x-user' })).toEqual([
      'security-scheme-changed /components/securitySchemes/User security scheme User changed how the credential is sent',
    ]);
    for (const where of ['query', 'cookie']) {
      const key = (name: string) => ({ K: { type: 'apiKey', in: where, name } });
      const sink = new ChangeSink();
      compareSecurity(
        { requirement: [{ K: [] }], schemes: key('api_key'), ptr: '' },
        { requirement: [{ K: [] }], schemes: key('API_KEY'), ptr: '' },
        sink,
        'GET /x',
      );
      expect(
        sink.changes.map((c) => c.id),
        where,
      ).toEqual(['security-scheme-changed']);
    }
  });
});

function servers(before: Json, after: Json) {
  const sink = new ChangeSink();
  compareServers(before, after, sink);
  return sink.changes.map((c) => `${c.id} ${c.operation}|${c.pointer} ${c.message}`);
}

describe('compareServers', () => {
  const a = {
    url: 'https://a',
    description: 'A',
    variables: { v: { default: '1', enum: ['1', '2'], description: 'd' } },
  };

  it('the same servers, in any place: nothing', () => {
    expect(servers([a, { url: 'https://b' }], [{ url: 'https://b' }, a])).toEqual([]);
    expect(servers(undefined as unknown as Json, 'x')).toEqual([]);
  });

  it('a URL removed (at its BASE index) and one added (at its HEAD index)', () => {
    expect(servers([{ url: 'https://z' }, a], [a, { url: 'https://n' }])).toEqual([
      'server-removed |/servers/0 server https://z removed',
      'server-added |/servers/1 server https://n added',
    ]);
  });

  it("a kept URL: its description, a variable's default or values, a variable's description, a variable added", () => {
    expect(servers([a], [{ ...a, description: 'B' }])).toEqual([
      'description-changed |/servers/0/description server https://a: description changed',
    ]);
    expect(servers([{ url: 'x' }, a], [{ ...a, variables: { v: { ...a.variables.v, default: '2' } } }])).toEqual([
      'server-removed |/servers/0 server x removed',
      'server-variable-changed |/servers/0/variables/v server variable v: default or allowed values changed',
    ]);
    expect(servers([a], [{ ...a, variables: { v: { ...a.variables.v, enum: ['1'] } } }])).toEqual([
      'server-variable-changed |/servers/0/variables/v server variable v: default or allowed values changed',
    ]);
    expect(servers([a], [{ ...a, variables: { v: { ...a.variables.v, description: 'e' } } }])).toEqual([
      'description-changed |/servers/0/variables/v/description server variable v: description changed',
    ]);
    expect(servers([a], [{ ...a, variables: { ...a.variables, 'p/q': { default: 'x' } } }])).toEqual([
      'server-variable-changed |/servers/0/variables/p~1q server variable p/q: default or allowed values changed',
    ]);
    expect(servers([{ ...a, variables: 'x' }], [{ ...a, variables: { w: 'y' } }])).toEqual([]);
  });
});
