/**
 * The one parser of OpenAPI path templates (`/orgs/{org_id}/members`): literal text and parameter
 * names, parsed once per template; filling, matching and blanking are built on it.
 */
export interface PathTemplate {
  readonly template: string;
  /** Literal text around the parameters: one more entry than `names`. */
  readonly literals: readonly string[];
  /** Parameter names in the order they appear. */
  readonly names: readonly string[];
}

const parsed = new Map<string, PathTemplate>();

export function parsePathTemplate(template: string): PathTemplate {
  let found = parsed.get(template);
  if (!found) {
    // Literal text at even indexes, parameter names at odd ones.
    const parts = template.split(/\{([^}]+)\}/);
    found = { template, literals: parts.filter((_, i) => i % 2 === 0), names: parts.filter((_, i) => i % 2 === 1) };
    if (parsed.size > 256) parsed.clear();
    parsed.set(template, found);
  }
  return found;
}

/** Fills the `{name}` placeholders, each value URL-encoded (`vapc-missing-name` for a value not given). */
export function fillPath(template: string, values: Record<string, string>): string {
  const { literals, names } = parsePathTemplate(template);
  if (names.length === 0) return template;
  let out = literals[0]!;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    out += encodeURIComponent(values[name] ?? `vapc-missing-${name}`) + literals[i + 1]!;
  }
  return out;
}

/** The template with every parameter name blanked (`/orgs/{}/members`): renamed parameters still compare equal. */
export function blankPathTemplate(template: string): string {
  return parsePathTemplate(template).literals.join('{}');
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');

export interface PathPatternOptions {
  /** Match from the start of the path (false: the path may carry a prefix, such as a base URL's path). */
  anchored: boolean;
  /** Whether a parameter may be empty (`//`). */
  emptyParams: boolean;
}

/** A regular expression matching a concrete path against the template (a trailing slash allowed), one capture group per parameter. */
export function pathPattern(template: string, options: PathPatternOptions): RegExp {
  const key = `${options.anchored ? 'a' : '-'}${options.emptyParams ? 'e' : '-'}${template}`;
  let found = patterns.get(key);
  if (!found) {
    const { literals } = parsePathTemplate(template);
    const param = options.emptyParams ? '([^/]*)' : '([^/]+)';
    found = new RegExp(`${options.anchored ? '^' : ''}${literals.map(escapeRegExp).join(param)}/?$`);
    if (patterns.size > 256) patterns.clear();
    patterns.set(key, found);
  }
  return found;
}

/** Compiled patterns by options and template (no `g` or `y` flag: a shared RegExp keeps no state between uses). */
const patterns = new Map<string, RegExp>();
