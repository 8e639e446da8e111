/**
 * Positions in the authored spec source (spec/openapi.yaml and the files it $refs), for reports
 * that point a finding at the line of the contract it breaks (report.sarif). The files are found by
 * following $refs from the root document, never by name, so renaming a split file moves nothing
 * here. Lines and columns are 1-based, as editors and SARIF count them.
 */
import { dirname, relative, resolve } from 'node:path';
import { readInFolder } from './files.js';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { packageRoot, paths } from '../paths.js';

export interface SourcePosition {
  /** The file, relative to the package root with '/' separators, e.g. `spec/openapi.yaml` or `spec/components/schemas/Call.yaml`. */
  file: string;
  line: number;
  column: number;
}

/** Where in the request a field the failure is about lives. */
export type FieldLocation = 'body' | 'query' | 'path' | 'header' | 'cookie';

interface LoadedFile {
  file: string;
  contents: Node | null;
  lines: LineCounter;
}

/** A node of some file: where a walk stands. */
interface Cursor {
  source: LoadedFile;
  node: Node | null;
}

const MAX_REF_HOPS = 16;

/**
 * An index of the authored split spec, read lazily: each file is parsed (with source positions)
 * the first time a walk reaches it. Unreadable or unparsable files make lookups return undefined,
 * never throw: a report is still written, with fewer locations.
 */
export class SpecSource {
  private readonly files = new Map<string, LoadedFile | undefined>();

  constructor(
    readonly root: string = paths.specSource,
    private readonly base: string = packageRoot,
  ) {}

  /** The line of the method key (`post:`) of an operation, in whichever file holds it. */
  operation(path: string, method: string): SourcePosition | undefined {
    const item = this.pathItem(path);
    return item ? this.keyPosition(item, method.toLowerCase()) : undefined;
  }

  /** The line of a documented status key (`'422':`, `2XX:`) of an operation's responses, or undefined. */
  responseStatus(path: string, method: string, status: string): SourcePosition | undefined {
    const item = this.pathItem(path);
    const responses = item && this.walk(item, [method.toLowerCase(), 'responses']);
    return responses ? this.keyPosition(responses, status) : undefined;
  }

  /** The line of a parameter's `name:` (operation-level first, then path-level), or undefined. */
  parameter(path: string, method: string, name: string, location?: FieldLocation): SourcePosition | undefined {
    const item = this.pathItem(path);
    if (!item) return undefined;
    const op = this.child(item, method.toLowerCase());
    for (const holder of [op, item]) {
      const list = holder ? this.child(holder, 'parameters') : undefined;
      if (!list || !isSeq(list.node)) continue;
      for (const entry of list.node.items) {
        const param = this.deref({ source: list.source, node: entry as Node });
        if (!param || !isMap(param.node)) continue;
        if (param.node.get('name') !== name || (location !== undefined && param.node.get('in') !== location)) continue;
        return this.keyPosition(param, 'name');
      }
    }
    return undefined;
  }

  /**
   * The line of a request body property key, following `properties` (and array `items`) through
   * $refs for a nested pointer (`['speech_settings', 'style']`). Undefined when not found.
   */
  bodyProperty(path: string, method: string, segments: readonly string[]): SourcePosition | undefined {
    const item = this.pathItem(path);
    const op = item && this.child(item, method.toLowerCase());
    return op ? this.jsonSchemaProperty(this.walk(op, ['requestBody', 'content']), segments) : undefined;
  }

  /**
   * The line of a property of the response body documented for `status` (the exact code, else
   * its `2XX`-style range, else `default`), e.g. `['duration_seconds']` of a call in GET /calls.
   */
  responseProperty(
    path: string,
    method: string,
    status: string,
    segments: readonly string[],
  ): SourcePosition | undefined {
    const item = this.pathItem(path);
    const responses = item && this.walk(item, [method.toLowerCase(), 'responses']);
    const map = responses && this.deref(responses);
    if (!map || !isMap(map.node)) return undefined;
    const key = [status, `${status.charAt(0)}XX`, 'default'].find(
      (k) => map.node !== null && isMap(map.node) && map.node.has(k),
    );
    const response = key === undefined ? undefined : this.child(map, key);
    return response ? this.jsonSchemaProperty(this.child(response, 'content'), segments) : undefined;
  }

  /** A property of the JSON media type's schema in a `content` map. */
  private jsonSchemaProperty(content: Cursor | undefined, segments: readonly string[]): SourcePosition | undefined {
    if (!content || !isMap(content.node) || segments.length === 0) return undefined;
    const json = content.node.items.find((p) => isScalar(p.key) && /json/i.test(String(p.key.value)));
    if (!json) return undefined;
    let schema = this.walk(content, [String((json.key as { value: unknown }).value), 'schema']);
    for (const [i, segment] of segments.entries()) {
      while (schema && isMap(schema.node) && !schema.node.has('properties') && schema.node.has('items'))
        schema = this.child(schema, 'items');
      const props = schema && this.child(schema, 'properties');
      if (!props || !isMap(props.node) || !props.node.has(segment)) return undefined;
      if (i === segments.length - 1) return this.keyPosition(props, segment);
      schema = this.child(props, segment);
    }
    return undefined;
  }

  /** Reads line `line` (1-based) of a file given as `SourcePosition.file`, for tests and previews. */
  lineOf(position: SourcePosition): string | undefined {
    const text = readInFolder(resolve(this.base, position.file), dirname(resolve(this.root)));
    return text.split(/\r?\n/)[position.line - 1];
  }

  private pathItem(path: string): Cursor | undefined {
    const root = this.load(this.root);
    return root ? this.walk({ source: root, node: root.contents }, ['paths', path]) : undefined;
  }

  /** Follows `segments` as map keys from `start`, resolving $refs on the way. */
  private walk(start: Cursor, segments: readonly string[]): Cursor | undefined {
    let at: Cursor | undefined = start;
    for (const segment of segments) {
      at = at && this.child(at, segment);
      if (!at) return undefined;
    }
    return at;
  }

  /** The value under `key` of the map at `at` (after resolving a $ref there), itself resolved. */
  private child(at: Cursor, key: string): Cursor | undefined {
    const map = this.deref(at);
    if (!map || !isMap(map.node) || !map.node.has(key)) return undefined;
    return this.deref({ source: map.source, node: map.node.get(key, true) as Node });
  }

  /** The position of `key` in the map at `at` (after resolving a $ref there). */
  private keyPosition(at: Cursor, key: string): SourcePosition | undefined {
    const map = this.deref(at);
    if (!map || !isMap(map.node)) return undefined;
    const pair = map.node.items.find((p) => isScalar(p.key) && p.key.value === key);
    const range = pair && isScalar(pair.key) ? pair.key.range : undefined;
    if (!range) return undefined;
    const { line, col } = map.source.lines.linePos(range[0]);
    return { file: map.source.file, line, column: col };
  }

  /** Resolves a `{$ref: 'file.yaml#/pointer'}` map (chains included) to the node it names. */
  private deref(at: Cursor): Cursor | undefined {
    let current: Cursor = at;
    for (let hops = 0; hops < MAX_REF_HOPS; hops++) {
      const node = current.node;
      if (!isMap(node) || !node.has('$ref')) return current;
      const ref = node.get('$ref');
      if (typeof ref !== 'string') return current;
      const [target = '', pointer = ''] = ref.split('#', 2);
      const source =
        target === ''
          ? current.source
          : this.load(resolve(dirname(resolve(this.base, current.source.file)), decodeURI(target)));
      if (!source) return undefined;
      let next: Cursor | undefined = { source, node: source.contents };
      for (const raw of pointer.split('/').slice(1)) {
        const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
        const here: Cursor | undefined = next && this.deref(next);
        if (!here || !isMap(here.node) || !here.node.has(segment)) return undefined;
        next = { source: here.source, node: here.node.get(segment, true) as Node };
      }
      if (!next) return undefined;
      current = next;
    }
    return undefined;
  }

  private load(absolute: string): LoadedFile | undefined {
    if (this.files.has(absolute)) return this.files.get(absolute);
    let loaded: LoadedFile | undefined;
    try {
      const lines = new LineCounter();
      // Only files of the spec's folder, within the cap: a $ref is followed here only to find a line.
      const doc = parseDocument(readInFolder(absolute, dirname(resolve(this.root))), {
        lineCounter: lines,
        keepSourceTokens: false,
      });
      loaded = {
        file: relative(this.base, absolute).split('\\').join('/'),
        contents: (doc.contents as Node | null) ?? null,
        lines,
      };
    } catch {
      loaded = undefined;
    }
    this.files.set(absolute, loaded);
    return loaded;
  }
}

/** A field of a request a finding names: where it is sent (if known) and its path. */
export interface SourceField {
  /** body, query, path, header, or `response` (a property of the response body). */
  location?: string;
  /** For `response`: the status code answered. */
  status?: string;
  segments: readonly string[];
}

/**
 * The locator report.sarif uses: `METHOD /path` labels to operation lines, and named fields to
 * the line of the body property or parameter (body first when the location is not known).
 */
export function specLocator(source: SpecSource = new SpecSource()) {
  const split = (label: string): [string, string] | undefined => {
    const m = /^([A-Z]+) (\/\S*)$/.exec(label);
    return m ? [m[2]!, m[1]!] : undefined;
  };
  return {
    operation(label: string): SourcePosition | undefined {
      const op = split(label);
      return op ? source.operation(...op) : undefined;
    },
    field(label: string, field: SourceField): SourcePosition | undefined {
      const op = split(label);
      if (!op || field.segments.length === 0) return undefined;
      const [path, method] = op;
      const where = field.location;
      if (where === 'response')
        return field.status ? source.responseProperty(path, method, field.status, field.segments) : undefined;
      if (where === undefined || where === 'body') {
        const found = source.bodyProperty(path, method, field.segments);
        if (found || where === 'body') return found;
      }
      return field.segments.length === 1
        ? source.parameter(path, method, field.segments[0]!, where as FieldLocation | undefined)
        : undefined;
    },
  };
}
