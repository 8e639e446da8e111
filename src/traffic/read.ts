/**
 * Reads a recording (a file, a directory of them, or standard input) as a stream of exchanges,
 * never whole: NDJSON and gateway logs line by line, each line capped in bytes and nesting; HAR
 * (one JSON document) read whole up to its own cap. Files come through the one reader of checkout
 * files (src/files/checkout.ts): confined, regular, capped before and while read. Anything that is
 * not a recording is a RecordingError (E_TRAFFIC, exit 2) naming the file and the line.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkoutDirectoryFiles, shownName, streamCheckoutFile } from '../files/checkout.js';
import { nestingDepth } from '../transport/undici.js';
import type { Exchange } from '../transport/types.js';
import { RecordingError, toExchange } from './exchange.js';
import { formatOfName, fromHarEntry, fromLine, harEntries, isRecordingName, type RecordingFormat } from './formats.js';

/** The caps of one read. */
export interface RecordingLimits {
  /** The most bytes one file (or standard input) may have. */
  maxBytes: number;
  /** The most bytes a HAR document may have (read whole). */
  maxHarBytes: number;
  /** The longest line of NDJSON or a log. */
  maxLineBytes: number;
  /** The deepest nesting of a HAR document (read whole; a line's bodies are capped where they are read). */
  maxDepth: number;
  /** The most exchanges a recording may hold. */
  maxExchanges: number;
}

export const DEFAULT_LIMITS: RecordingLimits = {
  maxBytes: 8 * 1024 ** 3,
  maxHarBytes: 256 * 1024 ** 2,
  maxLineBytes: 32 * 1024 ** 2,
  maxDepth: 1000,
  maxExchanges: 50_000_000,
};

/** Where a recording comes from: a path (a file or a directory) or `-`, standard input. */
export interface RecordingSource {
  path: string;
  /** Standard input's bytes, for `-`. */
  stdin?: AsyncIterable<Buffer>;
  /** The format, or undefined to tell it from the name and the first bytes. */
  format?: RecordingFormat;
  cwd?: string;
  limits?: Partial<RecordingLimits>;
}

/** One exchange read, with where it stands in the recording (`traffic.ndjson line 12`). */
export interface ReadExchange {
  exchange: Exchange;
  where: string;
}

/** What a read skipped (entries without an answer), counted as it goes. */
export interface ReadTally {
  files: number;
  unanswered: number;
  format?: RecordingFormat;
}

/** The lines of a byte stream, each at most `max` bytes (a longer one is refused), without their line ends. */
async function* linesOf(chunks: AsyncIterable<Buffer>, max: number, name: string): AsyncGenerator<[string, number]> {
  let pending: Buffer[] = [];
  let pendingLength = 0;
  let number = 0;
  const tooLong = () => new RecordingError(`${name} line ${number + 1}`, `longer than ${max} bytes`);
  for await (const chunk of chunks) {
    let start = 0;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, start)) {
      if (pendingLength + at - start > max) throw tooLong();
      const piece = chunk.subarray(start, at);
      const line = pendingLength > 0 ? Buffer.concat([...pending, piece]) : piece;
      pending = [];
      pendingLength = 0;
      number++;
      yield [line.toString('utf8').replace(/\r$/, ''), number];
      start = at + 1;
    }
    if (start < chunk.length) {
      pendingLength += chunk.length - start;
      if (pendingLength > max) throw tooLong();
      pending.push(chunk.subarray(start));
    }
  }
  if (pendingLength > 0) yield [Buffer.concat(pending).toString('utf8').replace(/\r$/, ''), number + 1];
}

/**
 * A line or document as JSON. JSON.parse does not recurse, so a deep line costs no stack; what is
 * read of it is a few fields of known shape (a deep value there is refused as not a string), and a
 * body's own nesting is checked where the body is read (exchange.ts). A HAR document, read whole,
 * has its nesting capped first.
 */
function parseJson(text: string, where: string, maxDepth?: number): unknown {
  if (maxDepth !== undefined && nestingDepth(text, maxDepth) > maxDepth)
    throw new RecordingError(where, `nested deeper than ${maxDepth} levels`);
  try {
    return JSON.parse(text);
  } catch {
    throw new RecordingError(where, 'not JSON');
  }
}

/** Every exchange of an NDJSON recording or a gateway log, line by line (blank lines skipped). */
async function* lineExchanges(
  chunks: AsyncIterable<Buffer>,
  name: string,
  format: 'ndjson' | 'kong' | undefined,
  limits: RecordingLimits,
): AsyncGenerator<ReadExchange> {
  for await (const [line, number] of linesOf(chunks, limits.maxLineBytes, name)) {
    if (!/\S/.test(line)) continue;
    const where = `${name} line ${number}`;
    yield { exchange: toExchange(fromLine(parseJson(line, where), where, format), where), where };
  }
}

async function collect(chunks: AsyncIterable<Buffer>, max: number, name: string): Promise<string> {
  const parts: Buffer[] = [];
  let length = 0;
  for await (const chunk of chunks) {
    length += chunk.length;
    if (length > max) throw new RecordingError(name, `a HAR document larger than ${max} bytes (record NDJSON instead)`);
    parts.push(chunk);
  }
  return Buffer.concat(parts, length).toString('utf8');
}

/** Every answered entry of a HAR document (read whole, up to its cap). */
async function* harExchanges(
  chunks: AsyncIterable<Buffer>,
  name: string,
  limits: RecordingLimits,
  tally: ReadTally,
): AsyncGenerator<ReadExchange> {
  const document = parseJson(await collect(chunks, limits.maxHarBytes, name), name, limits.maxDepth);
  const entries = harEntries(document, name);
  for (const [i, entry] of entries.entries()) {
    const where = `${name} entry ${i + 1}`;
    const raw = fromHarEntry(entry, where);
    if (raw === undefined) tally.unanswered++;
    else yield { exchange: toExchange(raw, where), where };
  }
}

/** The first bytes of a stream, and the stream again with them put back. */
async function peek(chunks: AsyncIterable<Buffer>): Promise<{ head: string; chunks: AsyncIterable<Buffer> }> {
  const iterator = chunks[Symbol.asyncIterator]();
  const first = await iterator.next();
  const head = first.done ? '' : first.value.subarray(0, 4096).toString('utf8');
  return {
    head,
    chunks: {
      async *[Symbol.asyncIterator]() {
        if (!first.done) yield first.value;
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
      },
    },
  };
}

/** The format of a stream whose name says none: a HAR document starts `{ "log"`, anything else is read as lines. */
function sniff(head: string): RecordingFormat | undefined {
  return /^\s*\{\s*"log"\s*:/.test(head) ? 'har' : undefined;
}

async function* streamExchanges(
  bytes: AsyncIterable<Buffer>,
  name: string,
  given: RecordingFormat | undefined,
  limits: RecordingLimits,
  tally: ReadTally,
): AsyncGenerator<ReadExchange> {
  const { head, chunks } = await peek(bytes);
  const format = given ?? formatOfName(name) ?? sniff(head);
  tally.format ??= format ?? 'ndjson';
  if (format === 'har') yield* harExchanges(chunks, name, limits, tally);
  else
    yield* lineExchanges(chunks, name, format === 'kong' ? 'kong' : format === 'ndjson' ? 'ndjson' : undefined, limits);
}

/**
 * The exchanges of a recording, in order: a file, the recordings of a directory in name order
 * (`.ndjson`, `.jsonl`, `.har`, `.json`, `.log`), or standard input. `tally` is filled as it goes.
 */
export async function* readRecording(source: RecordingSource, tally: ReadTally): AsyncGenerator<ReadExchange> {
  const limits = { ...DEFAULT_LIMITS, ...source.limits };
  let count = 0;
  const counted = async function* (inner: AsyncGenerator<ReadExchange>) {
    for await (const item of inner) {
      if (++count > limits.maxExchanges)
        throw new RecordingError(item.where, `more than ${limits.maxExchanges} exchanges in the recording`);
      yield item;
    }
  };
  if (source.path === '-') {
    tally.files = 1;
    yield* counted(streamExchanges(source.stdin ?? process.stdin, 'standard input', source.format, limits, tally));
    return;
  }
  const label = (path: string) => `recording ${shownName(path)}`;
  const options = { code: 'E_TRAFFIC' as const, cwd: source.cwd, maxBytes: limits.maxBytes, capOf: 'a recording' };
  const files = isDirectory(source.path, source.cwd)
    ? checkoutDirectoryFiles(source.path, { ...options, label: label(source.path) }, isRecordingName)
    : [source.path];
  if (files.length === 0) throw new RecordingError(label(source.path), 'a directory with no recording in it');
  for (const file of files) {
    tally.files++;
    const name = shownName(files.length > 1 ? file.split('/').pop()! : source.path);
    yield* counted(
      streamExchanges(streamCheckoutFile(file, { ...options, label: label(file) }), name, source.format, limits, tally),
    );
  }
}

function isDirectory(path: string, cwd: string | undefined): boolean {
  try {
    return statSync(resolve(cwd ?? process.cwd(), path)).isDirectory();
  } catch {
    return false;
  }
}
