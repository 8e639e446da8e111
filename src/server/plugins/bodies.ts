/**
 * Bodies plugin: request bodies are read as bytes and decoded here, so a body that is not JSON
 * (bad syntax, bad UTF-8, nesting too deep, another content type) becomes a 422 item of the
 * route rather than Fastify's own error. The route reads the problem with `bodyProblemOf`.
 */
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { JSON_MEDIA_TYPES, decodeJsonBody } from '../../http/json-body.js';
import type { BodyProblem } from '../types.js';

const problems = new WeakMap<FastifyRequest, BodyProblem>();

/** Why the request's body could not be read as JSON, if it could not. */
export function bodyProblemOf(request: FastifyRequest): BodyProblem | undefined {
  return problems.get(request);
}

function parseJson(request: FastifyRequest, bytes: Buffer): unknown {
  const decoded = decodeJsonBody(bytes);
  if (decoded.ok) return decoded.value;
  problems.set(request, { kind: 'json_invalid', position: decoded.position, msg: decoded.msg });
  return undefined;
}

export const bodiesPlugin = fp(
  async (app) => {
    app.removeAllContentTypeParsers();
    // Bytes, not text: malformed UTF-8 is refused, never replaced with U+FFFD.
    for (const type of JSON_MEDIA_TYPES) {
      app.addContentTypeParser(type, { parseAs: 'buffer' }, (request, body, done) => {
        done(null, parseJson(request, body as Buffer));
      });
    }
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
      const bytes = body as Buffer;
      const contentType = request.headers['content-type'];
      // No content type at all: read the body as JSON, as FastAPI does.
      if (contentType === undefined || contentType.trim() === '') return done(null, parseJson(request, bytes));
      if (bytes.length > 0) problems.set(request, { kind: 'content_type', contentType });
      return done(null, undefined);
    });
  },
  { name: 'vapc-bodies' },
);
