import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { diffDocuments, type Change } from '../../src/diff/index.js';
import { paths } from '../../src/paths.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Doc = any;

/** The bundle built by `npm run build` (dist/openapi.json), with its internal $refs. */
export const bundle = (): Doc => JSON.parse(readFileSync(paths.bundledJson, 'utf8'));

/** A copy of the bundle with one change made to it. */
export function variant(mutate: (doc: Doc) => void): Doc {
  const doc = bundle();
  mutate(doc);
  return doc;
}

export async function dereference(doc: Doc): Promise<Doc> {
  return SwaggerParser.dereference(structuredClone(doc));
}

let baseDoc: Promise<Doc> | undefined;
/** The unchanged bundle, dereferenced once. */
export const base = (): Promise<Doc> => (baseDoc ??= dereference(bundle()));

export async function diffAgainstBase(head: Doc): Promise<Change[]> {
  return diffDocuments(await base(), await dereference(head));
}
