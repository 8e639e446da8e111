/** A small HTTP client for the server tests: raw control over method, headers and body text. */
import { request as undiciRequest } from 'undici';

export interface Sent {
  method?: string;
  headers?: Record<string, string>;
  /** A JSON value, sent with content-type application/json. */
  json?: unknown;
  /** Raw body text; wins over json. */
  body?: string;
}

export interface Received {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** Parsed JSON when the body parses, else undefined. */
  json: any;
}

export async function send(baseUrl: string, path: string, sent: Sent = {}): Promise<Received> {
  const headers: Record<string, string> = { ...(sent.headers ?? {}) };
  let body: string | undefined = sent.body;
  if (body === undefined && sent.json !== undefined) {
    body = JSON.stringify(sent.json);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json';
  }
  const response = await undiciRequest(`${baseUrl}${path}`, {
    method: (sent.method ?? 'GET') as 'GET',
    headers,
    ...(body !== undefined ? { body } : {}),
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const text = await response.body.text();
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, headers: out, text, json };
}

/** Sends with the credentials a fixture set names (bearer + X-User-ID). */
export function authed(
  fixtures: { api_key: string; user_id: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  return { authorization: `Bearer ${fixtures.api_key}`, 'x-user-id': fixtures.user_id, ...extra };
}
