/**
 * The Hono adapter: `app.use(honoContract(options))`. Web-standard Request and Response only, so
 * it runs wherever Hono runs. The body of an operation is read with `c.req.arrayBuffer()`, which
 * Hono caches, so `c.req.json()` still works in the handler. In test mode the response is read
 * whole after the handler and judged (a breach replaces it with the 500); in a production sample
 * a clone of it is judged while the original goes out untouched.
 */
import { ContractEngine, type Answer, type Route } from './core.js';
import type { ContractMiddlewareOptions } from './types.js';

/** The members of Hono's Context the adapter uses. */
export interface HonoContextLike {
  req: {
    url: string;
    method: string;
    raw: { headers: Headers };
    arrayBuffer(): Promise<ArrayBuffer>;
  };
  res: Response | undefined;
}

export type HonoMiddleware = (c: HonoContextLike, next: () => Promise<void>) => Promise<Response | void>;

function respond(answer: Answer): Response {
  return new Response(answer.text, { status: answer.status, headers: { 'content-type': answer.contentType } });
}

function headerRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => (out[name] = value));
  return out;
}

/** The response's body, or undefined past maxResponseBytes (judged without it). */
async function bodyOf(engine: ContractEngine, res: Response): Promise<Uint8Array | undefined> {
  const length = Number(res.headers.get('content-length') ?? NaN);
  if (length > engine.options.maxResponseBytes) return undefined;
  const bytes = new Uint8Array(await res.arrayBuffer());
  return bytes.length > engine.options.maxResponseBytes ? undefined : bytes;
}

async function judged(engine: ContractEngine, route: Route, res: Response): Promise<Answer | undefined> {
  const bytes = res.body === null ? undefined : await bodyOf(engine, res);
  const body = bytes === undefined ? undefined : { bytes };
  const finding = engine.judgeResponse(route, res.status, headerRecord(res.headers), body);
  return finding ? engine.breachAnswer(finding) : undefined;
}

async function requestBody(engine: ContractEngine, c: HonoContextLike) {
  const length = Number(c.req.raw.headers.get('content-length') ?? NaN);
  if (length > engine.options.maxBodyBytes) return 'too-large' as const;
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  if (bytes.length > engine.options.maxBodyBytes) return 'too-large' as const;
  return { bytes, contentType: c.req.raw.headers.get('content-type') ?? undefined };
}

export function honoContract(options?: ContractMiddlewareOptions): HonoMiddleware {
  const engine = new ContractEngine(options);
  return async (c, next) => {
    const url = new URL(c.req.url);
    const route = engine.match(c.req.method, url.pathname + url.search);
    if (!route) return next();
    const body = engine.readsBody(route) ? await requestBody(engine, c) : undefined;
    if (body === 'too-large') return respond(engine.tooLarge());
    const verdict = engine.checkRequest(route, c.req.raw.headers, body);
    if (!verdict.ok) return respond(verdict.answer);
    const plan = engine.responsePlan();
    await next();
    const res = c.res;
    if (!plan || !res) return undefined;
    if (plan === 'copy') {
      // Judged from a clone once it is read; the response itself goes out as it is.
      judged(engine, route, res.clone()).catch(() => undefined);
      return undefined;
    }
    const breach = await judged(engine, route, res.clone());
    if (breach) {
      // Cleared first, so Hono does not carry the old response's headers over to the new one.
      c.res = undefined;
      c.res = respond(breach);
    }
    return undefined;
  };
}
