/**
 * The packaged spec, validated once by the build: `npm run build` meta-validates spec/openapi.yaml,
 * dereferences it and writes the result to `dist/openapi.dereferenced.json` stamped with a hash of
 * the spec folder. A run that uses the packaged spec reads that file (a JSON.parse of ~160 KB)
 * instead of validating the document against the OpenAPI meta-schema again (~0.5 s, and the
 * parser's modules). The stamp is checked on every read: a spec edited since the build, a missing
 * or unreadable file, or one from another layout falls back to the full load.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { packageRoot, paths } from '../paths.js';
import type { OpenAPIDocument } from './model.js';

export const PACKAGED_SPEC_FILE = join(packageRoot, 'dist', 'openapi.dereferenced.json');
const FORMAT = 1;

interface PackagedSpec {
  format: number;
  /** sha256 over the names and contents of every file under spec/ when the build validated it. */
  spec_hash: string;
  document: OpenAPIDocument;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return filesUnder(path);
      return entry.isFile() ? [path] : [];
    });
}

/** The hash of the authored spec folder (the folder of spec/openapi.yaml): names and contents. */
export function specFolderHash(specFile: string = paths.specSource): string {
  const folder = join(specFile, '..');
  const hash = createHash('sha256');
  for (const file of filesUnder(folder))
    hash.update(`\0${relative(folder, file).split(sep).join('/')}\0`).update(readFileSync(file));
  return hash.digest('hex');
}

/** The build's side: the validated, dereferenced document, stamped with the folder it came from. */
export function packagedSpecText(document: OpenAPIDocument, specFile: string = paths.specSource): string {
  const packaged: PackagedSpec = { format: FORMAT, spec_hash: specFolderHash(specFile), document };
  return JSON.stringify(packaged);
}

/**
 * The run's side: the document the build validated, or undefined when there is none or the spec
 * folder changed since (the caller then loads and validates the authored spec itself).
 */
export function readPackagedDocument(
  file: string = PACKAGED_SPEC_FILE,
  specFile: string = paths.specSource,
): OpenAPIDocument | undefined {
  try {
    const packaged = JSON.parse(readFileSync(file, 'utf8')) as Partial<PackagedSpec>;
    if (packaged.format !== FORMAT || typeof packaged.document !== 'object' || packaged.document === null)
      return undefined;
    return packaged.spec_hash === specFolderHash(specFile) ? packaged.document : undefined;
  } catch {
    return undefined;
  }
}
