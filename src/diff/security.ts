import { isObject, SAME_ON_THE_WIRE, same, seg, type ChangeSink, type Json, type JsonObject } from './types.js';

/** The alternatives of a security requirement, each the sorted names of the schemes it needs together. */
function alternatives(requirement: Json | undefined): string[][] {
  if (!Array.isArray(requirement)) return [];
  return requirement.filter(isObject).map((alt) => Object.keys(alt).sort());
}

const key = (alt: string[]): string => alt.join('+') || '(none)';
const isSubset = (a: string[], b: string[]): boolean => a.every((x) => b.includes(x));

/**
 * Security is a list of alternatives, each a set of schemes sent together. A client keeps working
 * when an alternative it uses is still accepted as is or with fewer schemes; one more scheme in its
 * alternative, or the alternative gone, refuses it.
 */
export function compareSecurity(
  base: { requirement: Json | undefined; schemes: JsonObject; ptr: string },
  head: { requirement: Json | undefined; schemes: JsonObject; ptr: string },
  sink: ChangeSink,
  operation: string,
): void {
  const before = alternatives(base.requirement);
  const after = alternatives(head.requirement);
  // Alternatives HEAD keeps as they were are not candidates for a stricter or looser match.
  const accounted = new Set<string>(after.filter((x) => before.some((y) => key(y) === key(x))).map(key));
  for (const alt of before) {
    if (after.some((x) => key(x) === key(alt))) continue;
    const looser = after.find((x) => isSubset(x, alt) && !accounted.has(key(x)));
    const stricter = after.find((x) => isSubset(alt, x) && !accounted.has(key(x)));
    if (looser) {
      accounted.add(key(looser));
      const dropped = alt.filter((s) => !looser.includes(s));
      sink.emit(
        'security-scheme-removed',
        operation,
        head.ptr,
        `security: ${dropped.join(', ')} no longer needed with ${key(alt)}`,
      );
    } else if (stricter) {
      accounted.add(key(stricter));
      const added = stricter.filter((s) => !alt.includes(s));
      sink.emit(
        'security-scheme-added',
        operation,
        head.ptr,
        `security: ${added.join(', ')} now also required (was ${key(alt)})`,
      );
    } else {
      sink.emit(
        'security-requirement-removed',
        operation,
        base.ptr,
        `security: the alternative ${key(alt)} is no longer accepted`,
      );
    }
  }
  for (const alt of after) {
    if (!accounted.has(key(alt)) && !before.some((x) => key(x) === key(alt))) {
      sink.emit(
        'security-requirement-added',
        operation,
        head.ptr,
        `security: the alternative ${key(alt)} is now accepted`,
      );
    }
  }
  const kept = new Set(before.flat().filter((s) => after.flat().includes(s)));
  for (const name of kept) compareScheme(name, base.schemes[name], head.schemes[name], sink, operation);
}

/** The name of the header a scheme sends its credential in, or undefined (a query or cookie name is case-sensitive). */
const headerName = (s: Json | undefined): string | undefined =>
  isObject(s) && s['in'] === 'header' && typeof s['name'] === 'string' ? s['name'] : undefined;

/** How a kept scheme sends its credential; a header name spelt in another case is the same header. */
function compareScheme(
  name: string,
  x: Json | undefined,
  y: Json | undefined,
  sink: ChangeSink,
  operation: string,
): void {
  const wire = (s: Json | undefined) =>
    isObject(s) ? [s['type'], s['scheme'], s['in'], headerName(s)?.toLowerCase() ?? s['name'], s['bearerFormat']] : s;
  const ptr = `/components/securitySchemes/${seg(name)}`;
  if (!same(wire(x), wire(y)))
    return sink.emit(
      'security-scheme-changed',
      operation,
      ptr,
      `security scheme ${name} changed how the credential is sent`,
    );
  const [was, is] = [headerName(x), headerName(y)];
  if (was !== is)
    sink.emit(
      'header-name-case-changed',
      operation,
      `${ptr}/name`,
      `security scheme ${name}: header ${was} now spelt ${is}${SAME_ON_THE_WIRE}`,
    );
}

/** Servers: removed and added URLs, and changed variables of a kept URL. Document-wide (no operation). */
export function compareServers(base: Json | undefined, head: Json | undefined, sink: ChangeSink): void {
  const before = (Array.isArray(base) ? base : []).filter(isObject);
  const after = (Array.isArray(head) ? head : []).filter(isObject);
  before.forEach((server, i) => {
    const j = after.findIndex((s) => s['url'] === server['url']);
    if (j < 0) return sink.emit('server-removed', '', `/servers/${i}`, `server ${String(server['url'])} removed`);
    const next = after[j]!;
    if (!same(server['description'], next['description']))
      sink.emit(
        'description-changed',
        '',
        `/servers/${j}/description`,
        `server ${String(next['url'])}: description changed`,
      );
    const vb = isObject(server['variables']) ? server['variables'] : {};
    const vh = isObject(next['variables']) ? next['variables'] : {};
    for (const name of new Set([...Object.keys(vb), ...Object.keys(vh)])) {
      const x = isObject(vb[name]) ? vb[name] : {};
      const y = isObject(vh[name]) ? vh[name] : {};
      if (!same([x['default'], x['enum']], [y['default'], y['enum']])) {
        sink.emit(
          'server-variable-changed',
          '',
          `/servers/${j}/variables/${seg(name)}`,
          `server variable ${name}: default or allowed values changed`,
        );
      } else if (!same(x['description'], y['description'])) {
        sink.emit(
          'description-changed',
          '',
          `/servers/${j}/variables/${seg(name)}/description`,
          `server variable ${name}: description changed`,
        );
      }
    }
  });
  after.forEach((server, j) => {
    if (!before.some((s) => s['url'] === server['url']))
      sink.emit('server-added', '', `/servers/${j}`, `server ${String(server['url'])} added`);
  });
}
