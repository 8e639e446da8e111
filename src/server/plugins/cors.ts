/**
 * CORS plugin (@fastify/cors): headers on every response, read from the spec (the methods of its
 * operations, the headers its security schemes and request bodies use, the response headers it
 * documents); preflights of the documented OPTIONS operations continue to their routes.
 */
import cors from '@fastify/cors';
import fp from 'fastify-plugin';
import type { SpecModel } from '../../spec/model.js';

const unique = <T>(values: T[]): T[] => [...new Set(values)];

/** What a browser may send: the credential headers of the security schemes, and Content-Type when a body is documented. */
export function corsRequestHeaders(spec: SpecModel): string[] {
  const bodies = spec.operations.some((op) => op.requestBody !== undefined);
  return unique([...spec.securitySchemes.map((s) => s.header), ...(bodies ? ['Content-Type'] : [])]);
}

/** What a browser may read: every response header the spec documents (the rate-limit headers). */
export function corsExposedHeaders(spec: SpecModel): string[] {
  return unique(spec.operations.flatMap((op) => op.responses.flatMap((r) => r.headers.map((h) => h.name))));
}

export const corsPlugin = fp<{ spec: SpecModel }>(
  async (app, { spec }) => {
    await app.register(cors, {
      origin: '*',
      methods: unique(spec.operations.map((o) => o.method)),
      allowedHeaders: corsRequestHeaders(spec),
      exposedHeaders: corsExposedHeaders(spec),
      maxAge: 600,
      preflightContinue: true,
      strictPreflight: false,
    });
  },
  { name: 'vapc-cors' },
);
