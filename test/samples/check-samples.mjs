// Checks every sample file of this folder against a `validate(schemaName, value)` function and
// returns what went wrong. Plain ESM on purpose: the package test runs it inside a temporary
// project, against the installed tarball, with nothing but Node.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export function loadSamples(dir) {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')));
}

/** Returns { checked, schemas, problems }: problems is empty when every verdict is right. */
export function checkSamples(validate, dir) {
  const problems = [];
  let checked = 0;
  const files = loadSamples(dir);
  for (const file of files) {
    for (const sample of file.valid) {
      checked++;
      const r = validate(file.schema, sample.value);
      if (!r.ok) problems.push(`${file.schema} valid sample "${sample.why}" was rejected: ${r.issues.map((i) => i.message).join('; ')}`);
    }
    for (const sample of file.invalid) {
      checked++;
      const r = validate(file.schema, sample.value);
      if (r.ok) {
        problems.push(`${file.schema} invalid sample "${sample.why}" was accepted`);
      } else if (!r.issues.some((i) => i.pointer === sample.pointer && i.rule === sample.rule)) {
        problems.push(`${file.schema} invalid sample "${sample.why}": expected ${sample.rule} at "${sample.pointer}", got ${r.issues.map((i) => `${i.rule} at "${i.pointer}"`).join(', ')}`);
      }
    }
  }
  return { checked, schemas: files.map((f) => f.schema), problems };
}
