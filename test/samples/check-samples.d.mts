export interface SampleFile {
  schema: string;
  valid: { why: string; value: unknown }[];
  invalid: { why: string; value: unknown; pointer: string; rule: string }[];
}
export function loadSamples(dir: string): SampleFile[];
export function checkSamples(
  validate: (schema: never, value: unknown) => { ok: boolean; issues?: { pointer: string; rule: string; message: string }[] },
  dir: string,
): { checked: number; schemas: string[]; problems: string[] };
