/**
 * Which operation of the contract a request is for: its method and path matched against the
 * manifest's path templates (the more literal text a template has, the earlier it is tried), the
 * path parameters percent-decoded and the query read from the URL as sent, so that every adapter
 * sees the same parts whatever its framework parsed.
 */
import { manifest } from '../index.js';
import { parsePathTemplate, pathPattern } from '../spec/path-template.js';

/** A request matched to an operation, with the parts the validators read from its URL. */
export interface Route {
  operationId: string;
  method: string;
  /** The operation's path template, as the spec writes it. */
  template: string;
  /** Whether the operation documents a request body. */
  hasBody: boolean;
  /** Whether the operation documents header parameters. */
  headerParameters: boolean;
  path: Record<string, string>;
  query: Record<string, string | string[]>;
}

interface Entry {
  operationId: string;
  template: string;
  pattern: RegExp;
  names: readonly string[];
  hasBody: boolean;
  headerParameters: boolean;
  literal: number;
}

function decoded(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** A query string (without `?`) as the validators read it: a repeated name becomes an array. */
export function queryRecord(search: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  if (search === '') return query;
  for (const [name, value] of new URLSearchParams(search)) {
    const prev = query[name];
    query[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return query;
}

export class Router {
  private readonly byMethod = new Map<string, Entry[]>();
  private readonly basePath: string;

  constructor(basePath: string) {
    this.basePath = basePath.replace(/\/+$/, '');
    for (const [operationId, op] of Object.entries(manifest.operations)) {
      const { literals, names } = parsePathTemplate(op.path);
      const entry: Entry = {
        operationId,
        template: op.path,
        pattern: pathPattern(op.path, { anchored: true, emptyParams: false }),
        names,
        hasBody: op.body !== undefined,
        headerParameters: op.parameters.header.length > 0,
        literal: literals.join('').length,
      };
      const method = op.method.toUpperCase();
      const list = this.byMethod.get(method) ?? [];
      list.push(entry);
      this.byMethod.set(method, list);
    }
    for (const list of this.byMethod.values()) list.sort((a, b) => b.literal - a.literal);
  }

  /** The operation a request is for, or undefined when the contract has none at that method and path. */
  match(method: string | undefined, url: string | undefined): Route | undefined {
    const entries = this.byMethod.get((method ?? '').toUpperCase());
    if (!entries || url === undefined) return undefined;
    const q = url.indexOf('?');
    let pathname = q < 0 ? url : url.slice(0, q);
    if (this.basePath !== '') {
      if (!pathname.startsWith(this.basePath)) return undefined;
      pathname = pathname.slice(this.basePath.length);
      if (pathname !== '' && !pathname.startsWith('/')) return undefined;
    }
    for (const entry of entries) {
      const found = entry.pattern.exec(pathname);
      if (!found) continue;
      const path: Record<string, string> = {};
      entry.names.forEach((name, i) => (path[name] = decoded(found[i + 1]!)));
      return {
        operationId: entry.operationId,
        method: method!.toUpperCase(),
        template: entry.template,
        hasBody: entry.hasBody,
        headerParameters: entry.headerParameters,
        path,
        query: queryRecord(q < 0 ? '' : url.slice(q + 1)),
      };
    }
    return undefined;
  }
}
