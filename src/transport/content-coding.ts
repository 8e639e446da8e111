/**
 * Content codings of a response body (RFC 9110 8.4): undici's `request` hands over the bytes as
 * they came, compressed or not. A request without Accept-Encoding (the runner sends none) allows
 * any coding (RFC 9110 12.5.3), so a correct server may answer gzip, deflate or br: the body is
 * decoded here before it is read as text, never past the body cap (a small compressed body may
 * inflate to gigabytes).
 */
import { brotliDecompressSync, constants, gunzipSync, inflateRawSync, inflateSync, type ZlibOptions } from 'node:zlib';

type Decoder = (bytes: Buffer, options: ZlibOptions) => Buffer;

/** zlib-wrapped deflate as RFC 9110 says, or the raw deflate some servers send under that name. */
const inflateEither: Decoder = (bytes, options) => {
  try {
    return inflateSync(bytes, options);
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw error;
    return inflateRawSync(bytes, options);
  }
};

const DECODERS: Record<string, Decoder> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateEither,
  br: (bytes, options) =>
    brotliDecompressSync(bytes, {
      ...(options.maxOutputLength === undefined ? {} : { maxOutputLength: options.maxOutputLength }),
      ...(options.finishFlush === undefined ? {} : { finishFlush: constants.BROTLI_OPERATION_FLUSH }),
    }),
};

/** The codings of a Content-Encoding header in the order they were applied; identity left out. */
export function codingsOf(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
}

export interface DecodedBody {
  text: string;
  truncated: boolean;
  /** Why the body could not be decoded (an unknown coding, corrupt data); the text is then the bytes as UTF-8. */
  error?: string;
}

/**
 * The text of a body sent with the Content-Encoding `header`. `cut`: the bytes were already cut at
 * the cap (what decodes of them is kept). The decoded text is cut at `maxBytes` too.
 */
export function decodeBody(bytes: Buffer, header: string | undefined, maxBytes: number, cut: boolean): DecodedBody {
  const codings = codingsOf(header);
  if (codings.length === 0 || bytes.length === 0) return { text: bytes.toString('utf8'), truncated: cut };
  let out = bytes;
  for (const coding of codings.reverse()) {
    const decode = DECODERS[coding];
    if (!decode) return { text: bytes.toString('utf8'), truncated: cut, error: `unknown content coding "${coding}"` };
    const options: ZlibOptions = { maxOutputLength: maxBytes };
    // A cut stream has no end: decode what arrived instead of failing on the missing trailer.
    if (cut) options.finishFlush = constants.Z_SYNC_FLUSH;
    try {
      out = decode(out, options);
    } catch (error) {
      if ((error as { code?: string }).code !== 'ERR_BUFFER_TOO_LARGE')
        return { text: bytes.toString('utf8'), truncated: cut, error: `the ${coding} body could not be decoded` };
      // Past the cap once decoded: nothing of it is judged, as with a plain body past the cap.
      return { text: '', truncated: true };
    }
  }
  return { text: out.toString('utf8'), truncated: cut };
}
