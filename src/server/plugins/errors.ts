/**
 * Errors plugin: every failure is a `{detail: string}` JSON body, never a stack trace or Fastify's
 * own shape, and none quotes more than a short piece of the request. The answers to what Node's
 * parser or Fastify's router refuse before any plugin runs are Fastify options (`errorOptions`).
 */
import type { FastifyReply, FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import { RATE_LIMITED_DETAIL } from '../errors.js';
import { clientErrorHandler, clip, frameworkErrorDetail, refuseConnect } from '../http-errors.js';
import { LINGER_LIMITS_PER_BODY_LIMIT, LINGER_MS, lingerBeforeClose } from '../linger.js';

export interface ErrorsOptions {
  bodyLimit: number;
}

/** The Fastify options that shape errors raised before routing: a bad URL, a long parameter, a bad request line. */
export function errorOptions(
  maxParamLength: number,
): Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler'> {
  return {
    // The URL is not quoted back: it may be kilobytes long.
    frameworkErrors: (error, _request, reply) => {
      void (reply as FastifyReply).code(400).send({ detail: frameworkErrorDetail(error.code, maxParamLength) });
    },
    clientErrorHandler,
  };
}

export const errorsPlugin = fp<ErrorsOptions>(
  async (app, { bodyLimit }) => {
    app.setErrorHandler((error: { statusCode?: number; code?: string; message?: string }, request, reply) => {
      const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
      if (status === 429)
        return reply.code(429).send({ detail: `${RATE_LIMITED_DETAIL}; retry after the window resets` });
      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        // Let the client finish sending (within bounds) so it can read this answer.
        lingerBeforeClose(request.raw, { maxBytes: bodyLimit * LINGER_LIMITS_PER_BODY_LIMIT, maxMs: LINGER_MS });
        return reply.code(413).send({ detail: `Request body larger than ${bodyLimit} bytes` });
      }
      if (status >= 400 && status < 500)
        return reply.code(status).send({ detail: clip(error.message ?? 'Bad request') });
      return reply.code(500).send({ detail: 'Internal Server Error' });
    });
    app.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: 'Not Found' }));
    // CONNECT never reaches a route in Node: answer it as any other undocumented method.
    app.server.on('connect', refuseConnect);
  },
  { name: 'vapc-errors' },
);
