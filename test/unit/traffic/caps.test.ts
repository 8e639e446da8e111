// The caps of a recording (src/traffic/read.ts, exchange.ts, credentials.ts): each one refuses a
// recording past it with one E_TRAFFIC line naming where, and a recording within it is read.
// The defaults are large (8 GiB a file), so each cap is shown at a small value given as a limit.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { VapcError } from '../../../src/errors.js';
import { Secrets } from '../../../src/secrets/index.js';
import { loadSpec } from '../../../src/spec/load.js';
import type { SpecModel } from '../../../src/spec/model.js';
import { CredentialLearner } from '../../../src/traffic/credentials.js';
import { driftRecording } from '../../../src/traffic/drift.js';
import { toExchange } from '../../../src/traffic/exchange.js';
import { readRecording, type RecordingLimits } from '../../../src/traffic/read.js';
import { checks } from '../../../suites/index.js';
import { profile } from '../../../suites/profile.js';
import { ANSWER_HEADERS, lineOf, tempDir } from '../../helpers/traffic.js';

let spec: SpecModel;
beforeAll(async () => {
  spec = await loadSpec();
});

const health = lineOf(
  { method: 'GET', url: 'http://x.test/health' },
  { status: 200, headers: ANSWER_HEADERS, body: '{"status":"ok"}' },
);

function file(name: string, text: string): string {
  const path = join(tempDir('vapc-caps-'), name);
  writeFileSync(path, text);
  return path;
}

/** Reads the whole recording under `limits`; the error of a refusal, or the exchanges read. */
async function read(path: string, limits: Partial<RecordingLimits>): Promise<{ error?: VapcError; count: number }> {
  let count = 0;
  try {
    for await (const _ of readRecording({ path, limits }, { files: 0, unanswered: 0 })) count++;
    return { count };
  } catch (error) {
    if (!(error instanceof VapcError)) throw error;
    return { error, count };
  }
}

describe('the caps of a recording', () => {
  const ndjson = (n: number) => `${Array.from({ length: n }, () => health).join('\n')}\n`;
  const har = JSON.stringify({
    log: {
      version: '1.2',
      entries: [
        {
          request: { method: 'GET', url: 'http://x.test/health', headers: [] },
          response: { status: 200, headers: [], content: { text: '{"status":"ok"}' } },
        },
      ],
    },
  });

  it.each([
    ['the bytes of a file', 'a.ndjson', ndjson(10), { maxBytes: health.length * 5 }, /a\.ndjson/],
    [
      'the length of a line',
      'b.ndjson',
      `${health}\n${lineOf({ method: 'GET', url: `http://x.test/health?pad=${'y'.repeat(500)}` }, { status: 200 })}\n`,
      { maxLineBytes: 300 },
      /line 2/,
    ],
    ['the exchanges of a recording', 'c.ndjson', ndjson(6), { maxExchanges: 5 }, /more than 5 exchanges/],
    ['the bytes of a HAR document', 'd.har', har, { maxHarBytes: 100 }, /d\.har/],
    [
      'the nesting of a HAR document',
      'e.har',
      har.replace('"version":"1.2"', `"version":"1.2","x":${'['.repeat(40)}${']'.repeat(40)}`),
      { maxDepth: 20 },
      /e\.har/,
    ],
  ] as const)('refuses a recording past %s: E_TRAFFIC, one line', async (_what, name, text, limits, where) => {
    const path = file(name, text);
    const within = await read(path, {});
    expect(within.error).toBeUndefined();
    const past = await read(path, limits);
    expect(past.error?.code).toBe('E_TRAFFIC');
    expect(past.error?.message).toMatch(where);
    expect(past.error?.message.split('\n')).toHaveLength(1);
  });

  it('a response body past 1 MiB is cut for judging, a gzip bomb decoded no further than the cap', () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 ** 2, 0x20)).toString('base64');
    const exchange = toExchange(
      {
        method: 'GET',
        url: 'http://x.test/health',
        requestHeaders: {},
        requestBody: undefined,
        status: 200,
        responseHeaders: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        responseBody: bomb,
        responseEncoding: 'base64',
        responseBodyRecorded: true,
      },
      'bomb.ndjson line 1',
    );
    expect(exchange.response!.text.length).toBeLessThanOrEqual(1024 * 1024);
    expect(exchange.response!.truncated).toBe(true);
  });

  it('refuses a recording with more distinct credentials than it can keep out of the reports', () => {
    const learner = new CredentialLearner(new Secrets(), spec, 3);
    const exchangeWith = (key: string) =>
      toExchange(
        {
          method: 'GET',
          url: 'http://x.test/calls',
          requestHeaders: { authorization: `Bearer ${key}` },
          requestBody: undefined,
          status: 200,
          responseHeaders: {},
          responseBody: '[]',
          responseBodyRecorded: true,
        },
        'k.ndjson',
      );
    for (const k of ['key-aaaaaaaa1', 'key-aaaaaaaa2', 'key-aaaaaaaa3', 'key-aaaaaaaa1'])
      learner.learn(exchangeWith(k), undefined, 'k.ndjson line 1');
    expect(() => learner.learn(exchangeWith('key-aaaaaaaa4'), undefined, 'k.ndjson line 5')).toThrow(
      /k\.ndjson line 5: more than 3 distinct credentials/,
    );
  });

  it('a refused recording judges nothing: driftRecording throws before any report exists', async () => {
    const path = file('late.ndjson', `${ndjson(3)}not json\n`);
    await expect(driftRecording({ spec, checks, profile, secrets: new Secrets(), path })).rejects.toThrow(
      /late\.ndjson line 4: not JSON/,
    );
  });
});
