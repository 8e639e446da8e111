/**
 * `vapc proxy --record FILE`: the exchanges it forwarded, as a recording `vapc drift` reads back
 * (NDJSON, one exchange a line, appended as each is judged; or HAR 1.2, written when the proxy
 * stops, for a `.har` name). Its credentials are replaced as a report replaces them (the bearer
 * value and user id by $VAPC_API_KEY / $VAPC_USER_ID, other secrets by [redacted], cookies hidden):
 * the file is an output like any other. Bodies are written as the judges read them (decoded from
 * their content coding); the verdicts of drift on the file are those the proxy gave.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { VapcError } from '../errors.js';
import { directoryRefusal, shownName } from '../files/checkout.js';
import { packageVersion } from '../paths.js';
import type { Secrets } from '../secrets/index.js';
import { REDACTED } from '../secrets/index.js';
import type { Exchange } from '../transport/types.js';
import { formatOfName } from './formats.js';

export interface RecordWriter {
  readonly path: string;
  readonly format: 'ndjson' | 'har';
  /** Appends one exchange (made safe with `secrets` as they stand). */
  write(exchange: Exchange, secrets: Secrets): void;
  close(): Promise<void>;
}

function safeHeaders(headers: Record<string, string>, secrets: Secrets): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    out[name] = name === 'cookie' || name === 'set-cookie' ? REDACTED : secrets.evidence(value);
  return out;
}

/** One exchange as a line of NDJSON (the shape `vapc drift` and Redocly's `drift` read). */
export function recordedLine(exchange: Exchange, secrets: Secrets, startedAt = new Date()): Record<string, unknown> {
  const request: Record<string, unknown> = {
    method: exchange.request.method,
    url: secrets.evidence(exchange.request.url),
    headers: safeHeaders(exchange.request.headers, secrets),
  };
  if (exchange.request.body !== undefined) request['body'] = secrets.evidence(exchange.request.body);
  const line: Record<string, unknown> = {
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(exchange.durationMs),
    request,
  };
  const res = exchange.response;
  if (res) {
    // The body as the judges read it: decoded, so the coding header goes with the bytes it described.
    const { 'content-encoding': _coding, 'content-length': _length, ...headers } = res.headers;
    line['response'] = { status: res.status, headers: safeHeaders(headers, secrets), body: secrets.evidence(res.text) };
  }
  return line;
}

const harHeaders = (headers: unknown) =>
  Object.entries(headers as Record<string, string>).map(([name, value]) => ({ name, value }));

/** One recorded line as a HAR 1.2 entry. */
function harEntry(line: Record<string, unknown>): Record<string, unknown> {
  const request = line['request'] as { method: string; url: string; headers: unknown; body?: string };
  const response = line['response'] as { status: number; headers: Record<string, string>; body: string } | undefined;
  const mime = (headers: Record<string, string> | unknown) => (headers as Record<string, string>)['content-type'] ?? '';
  return {
    startedDateTime: line['startedAt'],
    time: line['durationMs'],
    request: {
      method: request.method,
      url: request.url,
      httpVersion: 'HTTP/1.1',
      headers: harHeaders(request.headers),
      queryString: [...new URL(request.url).searchParams].map(([name, value]) => ({ name, value })),
      cookies: [],
      headersSize: -1,
      bodySize: request.body === undefined ? 0 : Buffer.byteLength(request.body),
      ...(request.body !== undefined ? { postData: { mimeType: mime(request.headers), text: request.body } } : {}),
    },
    response: {
      status: response?.status ?? 0,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      headers: harHeaders(response?.headers ?? {}),
      cookies: [],
      content: {
        size: response ? Buffer.byteLength(response.body) : 0,
        mimeType: mime(response?.headers ?? {}),
        ...(response ? { text: response.body } : {}),
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: response ? Buffer.byteLength(response.body) : 0,
    },
    cache: {},
    timings: { send: 0, wait: line['durationMs'], receive: 0 },
  };
}

/**
 * Opens FILE for the proxy's recording: NDJSON unless its name ends in `.har`. A path that leads
 * outside its folder through a symlink of the checkout is refused (exit 2), as a report directory is.
 */
export async function openRecordWriter(path: string): Promise<RecordWriter> {
  const outside = directoryRefusal(dirname(path));
  if (outside !== undefined) throw new VapcError('E_USAGE', `--record ${outside}`);
  const format = formatOfName(path) === 'har' ? 'har' : 'ndjson';
  const stream: WriteStream = createWriteStream(path, { flags: 'w', mode: 0o600 });
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new VapcError('E_USAGE', `--record ${shownName(path)} cannot be written (${error.code ?? error.message})`),
      ),
    );
  });
  let failed: Error | undefined;
  stream.on('error', (error) => (failed ??= error));
  const entries: Record<string, unknown>[] = [];
  return {
    path,
    format,
    write(exchange, secrets) {
      const line = recordedLine(exchange, secrets);
      if (format === 'har') entries.push(harEntry(line));
      else stream.write(`${JSON.stringify(line)}\n`);
    },
    async close() {
      if (format === 'har')
        stream.write(
          JSON.stringify({
            log: { version: '1.2', creator: { name: 'vapc proxy', version: packageVersion() }, entries },
          }),
        );
      await new Promise<void>((resolve) => stream.end(() => resolve()));
      if (failed)
        throw new VapcError(
          'E_USAGE',
          `--record ${shownName(path)}: the recording could not be written (${failed.message})`,
        );
    },
  };
}
