/**
 * The shapes of a recording, each mapped to the raw exchange of exchange.ts:
 * - NDJSON, one exchange a line: `{"request": {"method", "url", "headers", "body"}, "response":
 *   {"status", "headers", "body"}}` (the shape Redocly's `drift` reads too; `statusCode`, a HAR-like
 *   list of headers and `bodyEncoding: "base64"` are read as well);
 * - a Kong gateway log line (the file-log and http-log plugins): `request.url` or `request.uri`
 *   with its Host header, `response.status` and headers, `latencies`; bodies are not logged, so
 *   the response body is not judged (its status, content type and headers are);
 * - HAR 1.2: `log.entries[]` (`postData.text`, `content.text` with its `encoding`); an entry
 *   without an answer (status 0: the browser gave up) is counted, not judged.
 */
import { RecordingError, type RawExchange } from './exchange.js';

export type RecordingFormat = 'ndjson' | 'kong' | 'har';
export const RECORDING_FORMATS: readonly RecordingFormat[] = ['ndjson', 'kong', 'har'];

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

function part(line: Json, key: 'request' | 'response', where: string): Json {
  const value = line[key];
  if (!isObject(value)) throw new RecordingError(where, `no "${key}" object`);
  return value;
}

/** A Kong log line: it says what took how long, and which route and service served it. */
export const isKongLine = (line: Json): boolean =>
  isObject(line['latencies']) || (isObject(line['route']) && isObject(line['service']));

/** The request URL of a Kong line: its `url`, or its `uri` on the Host it was sent to. */
function kongUrl(request: Json): unknown {
  if (typeof request['url'] === 'string') return request['url'];
  const uri = request['uri'];
  const headers = isObject(request['headers']) ? request['headers'] : {};
  const host = typeof headers['host'] === 'string' ? headers['host'] : undefined;
  return typeof uri === 'string' && host !== undefined ? `http://${host}${uri}` : uri;
}

/** One JSON line of an NDJSON recording or a Kong log as a raw exchange. */
export function fromLine(line: unknown, where: string, format: 'ndjson' | 'kong' | undefined): RawExchange {
  if (!isObject(line)) throw new RecordingError(where, 'not a JSON object');
  const request = part(line, 'request', where);
  const response = part(line, 'response', where);
  const kong = format === 'kong' || (format === undefined && isKongLine(line));
  const latencies = isObject(line['latencies']) ? line['latencies'] : undefined;
  return {
    method: request['method'],
    url: kong ? kongUrl(request) : request['url'],
    requestHeaders: request['headers'],
    requestBody: request['body'],
    requestEncoding: request['bodyEncoding'],
    status: response['status'] ?? response['statusCode'],
    responseHeaders: response['headers'],
    responseBody: response['body'],
    responseEncoding: response['bodyEncoding'],
    responseBodyRecorded: !kong || response['body'] !== undefined,
    durationMs: line['durationMs'] ?? latencies?.['request'],
  };
}

/** One HAR entry as a raw exchange, or undefined for an entry that got no answer (status 0). */
export function fromHarEntry(entry: unknown, where: string): RawExchange | undefined {
  if (!isObject(entry)) throw new RecordingError(where, 'not a HAR entry (an object)');
  const request = part(entry, 'request', where);
  const response = part(entry, 'response', where);
  if (response['status'] === 0) return undefined;
  const post = isObject(request['postData']) ? request['postData'] : undefined;
  const content = isObject(response['content']) ? response['content'] : {};
  const size = typeof content['size'] === 'number' ? content['size'] : 0;
  return {
    method: request['method'],
    url: request['url'],
    requestHeaders: request['headers'],
    requestBody: post?.['text'],
    requestEncoding: post?.['encoding'],
    status: response['status'],
    responseHeaders: response['headers'],
    responseBody: content['text'],
    responseEncoding: content['encoding'],
    // A HAR exported without content says so by a size and no text.
    responseBodyRecorded: content['text'] !== undefined || size <= 0,
    durationMs: entry['time'],
  };
}

/** The entries of a HAR document. */
export function harEntries(document: unknown, where: string): unknown[] {
  const log = isObject(document) ? document['log'] : undefined;
  const entries = isObject(log) ? log['entries'] : undefined;
  if (!Array.isArray(entries)) throw new RecordingError(where, 'not a HAR 1.2 document (no log.entries list)');
  return entries;
}

/** The format a file's name says, if it says one. */
export function formatOfName(name: string): RecordingFormat | undefined {
  const lower = name.toLowerCase();
  if (lower.endsWith('.har')) return 'har';
  if (lower.endsWith('.ndjson') || lower.endsWith('.jsonl') || lower.endsWith('.jsonlines')) return 'ndjson';
  return undefined;
}

/** The names a directory recording reads: recordings and logs, nothing else. */
export const isRecordingName = (name: string): boolean =>
  formatOfName(name) !== undefined || /\.(?:json|log)$/i.test(name);
