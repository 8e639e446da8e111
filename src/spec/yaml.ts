/**
 * A spec's YAML means the same to every tool that reads it (issue 32). vapc parses with `yaml`
 * (YAML 1.2, core schema, no merge keys); Redocly (lint, bundle, the published spec and the
 * runner's validators) parses with js-yaml's JSON schema plus merge keys. Where the two would read
 * one text differently, a pull request could show `vapc diff` one document and ship another: a
 * `<<: {maximum: 5}` merged by Redocly only, `~` or `0x10` a null or a number to one and a string to
 * the other. So the constructs where YAML parsers disagree are refused, named by line, never quoted:
 *
 * - merge keys (`<<`), tags (`!!str`, `!!binary`, `!custom`) and directives (`%YAML 1.1`, `%TAG`);
 * - plain (unquoted) scalars that some schema reads as a null, a boolean or a number and that are
 *   not written the one way JSON writes them: `~`, `Null`, `True`, `0x10`, `0o17`, `0b1`, `+1`,
 *   `.5`, `1.`, `01`, `1_000`, `.inf`, `.nan`. `null`, `true`, `false` and JSON numbers
 *   (`-0`, `12`, `1.5`, `1e3`) read the same everywhere; anything else quoted is a string everywhere.
 *
 * test/catalog/hostile/yaml-semantics.test.ts diffs this parse against Redocly's bundle for every
 * construct: each is either refused here or read the same by both.
 */
import { parseDocument, visit, type Document, type LineCounter as Lines, LineCounter } from 'yaml';
import { VapcError } from '../errors.js';
import { shown } from './remote.js';

/** Scalars written the one way JSON writes them: read the same by every YAML schema. */
const JSON_SCALAR = /^(?:null|true|false|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)$/;

/**
 * Plain scalars that some YAML schema reads as a null, a boolean or a number (YAML 1.1 and 1.2
 * core, js-yaml's schemas): nulls, booleans in any case, numbers with signs, underscores, bases,
 * leading or trailing dots, leading zeros, infinities and NaN.
 */
const SCHEMA_DEPENDENT = [
  /^(?:~|null|Null|NULL)$/,
  /^(?:true|True|TRUE|false|False|FALSE)$/,
  /^[-+]?(?=[0-9._]*[0-9])[0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9_]+)?$/,
  /^[-+]?0[xXoObB][0-9a-fA-F_]+$/,
  /^[-+]?\.(?:inf|Inf|INF)$/,
  /^\.(?:nan|NaN|NAN)$/,
];

/** True for a plain scalar's source text that YAML parsers may read differently (see the module comment). */
export function isSchemaDependent(source: string): boolean {
  return !JSON_SCALAR.test(source) && SCHEMA_DEPENDENT.some((pattern) => pattern.test(source));
}

/** The first construct of `doc` that parsers read differently, with its offset, or undefined. */
function firstDisagreement(doc: Document): { why: string; offset: number | undefined } | undefined {
  const { yaml, tags } = doc.directives ?? { yaml: { explicit: false }, tags: {} };
  if (yaml.explicit || Object.keys(tags).some((handle) => handle !== '!!'))
    return { why: 'a YAML directive (%YAML, %TAG): YAML versions read scalars differently', offset: 0 };
  let found: { why: string; offset: number | undefined } | undefined;
  visit(doc, {
    Pair(_key, pair) {
      const key = pair.key as { type?: string; value?: unknown; range?: [number, number, number] } | null;
      if (key && key.type === 'PLAIN' && key.value === '<<') {
        found = { why: 'a merge key (<<), which some parsers merge and others keep as a key', offset: key.range?.[0] };
        return visit.BREAK;
      }
      return undefined;
    },
    Node(_key, node) {
      const offset = node.range?.[0];
      if (node.tag !== undefined) {
        found = { why: 'a YAML tag (!!type or !name), which parsers resolve differently', offset };
        return visit.BREAK;
      }
      const scalar = node as { type?: string; source?: unknown };
      if (scalar.type === 'PLAIN' && typeof scalar.source === 'string' && isSchemaDependent(scalar.source)) {
        found = {
          why: 'an unquoted scalar that YAML schemas read differently (a null, boolean or number not written as JSON writes it); quote it, or write it as JSON would',
          offset,
        };
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/** Options of one parse: the alias cap. */
export interface SpecYamlOptions {
  maxAliases: number;
}

/**
 * Parses a spec file's YAML, refusing what parsers read differently, warnings (an unknown tag) and
 * errors; every refusal names the file (`what`) and the line, never the text.
 */
export function parseSpecYaml(text: string, what: string, options: SpecYamlOptions): unknown {
  const lines: Lines = new LineCounter();
  const doc = parseDocument(text, {
    prettyErrors: false,
    uniqueKeys: true,
    merge: false,
    lineCounter: lines,
    logLevel: 'error',
  });
  const at = (offset: number | undefined) => (offset === undefined ? '' : ` at line ${lines.linePos(offset).line}`);
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem)
    throw new VapcError('E_SPEC_REFUSED', `${what}: not valid YAML (${shown(problem.code)})${at(problem.pos[0])}`);
  const disagreement = firstDisagreement(doc);
  if (disagreement)
    throw new VapcError(
      'E_SPEC_REFUSED',
      `${what}: refused${at(disagreement.offset)}: ${disagreement.why} (every tool must read the spec the same)`,
    );
  try {
    return doc.toJS({ maxAliasCount: options.maxAliases });
  } catch (error) {
    const e = error as { code?: string };
    const kind = /alias/i.test(`${e.code ?? ''} ${(error as Error).message}`)
      ? 'too many YAML alias expansions'
      : `not valid YAML (${shown(e.code ?? 'parse error')})`;
    throw new VapcError('E_SPEC_REFUSED', `${what}: ${kind}`);
  }
}
