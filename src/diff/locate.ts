import { dirname, resolve } from 'node:path';
import { readInFolder } from '../spec/files.js';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';

/** A place in the authored source: the file and the 1-based line. */
export interface SourceLocation {
  file: string;
  line: number;
}

interface Parsed {
  doc: Document;
  lines: LineCounter;
}

const unescape = (s: string): string => s.replace(/~1/g, '/').replace(/~0/g, '~');
const segments = (pointer: string): string[] =>
  pointer.replace(/^#/, '') === '' ? [] : pointer.replace(/^#/, '').slice(1).split('/').map(unescape);

/**
 * Finds the line of a JSON Pointer of the dereferenced document in the authored source, following
 * $refs across files (the split spec) or inside one (a bundle). When the pointer leads somewhere the
 * source does not have (a removed member), the deepest existing ancestor is returned.
 */
export class SourceLocator {
  private readonly files = new Map<string, Parsed | undefined>();
  /** Files are read only inside the root's folder (the loader refused any $ref leaving it). */
  private readonly folder: string;
  constructor(private readonly rootFile: string) {
    this.folder = dirname(resolve(rootFile));
  }

  private parsed(file: string): Parsed | undefined {
    if (!this.files.has(file)) {
      try {
        const lines = new LineCounter();
        this.files.set(file, { doc: parseDocument(readInFolder(file, this.folder), { lineCounter: lines }), lines });
      } catch {
        this.files.set(file, undefined);
      }
    }
    return this.files.get(file);
  }

  private lineOf(file: string, node: Node | null | undefined): SourceLocation {
    const offset = node?.range?.[0] ?? 0;
    return { file, line: this.parsed(file)?.lines.linePos(offset).line ?? 1 };
  }

  /** Follows `$ref` members until a node that is not a reference (at most 20 hops). */
  private follow(file: string, node: Node | null | undefined): { file: string; node: Node | null | undefined } {
    for (let hops = 0; hops < 20 && isMap(node); hops++) {
      const ref = node.get('$ref');
      if (typeof ref !== 'string') break;
      const [target = '', fragment = ''] = ref.split('#');
      const nextFile = target ? resolve(dirname(file), target) : file;
      const parsed = this.parsed(nextFile);
      if (!parsed) break;
      const found = this.walk(nextFile, parsed.doc.contents, segments(fragment));
      if (!found.complete) break;
      file = nextFile;
      node = found.node;
    }
    return { file, node };
  }

  private walk(
    file: string,
    start: Node | null | undefined,
    path: string[],
  ): { file: string; node: Node | null | undefined; complete: boolean } {
    let node = start;
    for (const key of path) {
      ({ file, node } = this.follow(file, node));
      let next: unknown;
      if (isMap(node)) next = node.items.find((pair) => isScalar(pair.key) && String(pair.key.value) === key)?.value;
      else if (isSeq(node)) next = node.items[Number(key)];
      if (next === undefined || next === null) return { file, node, complete: false };
      node = next as Node;
    }
    return { file, node, complete: true };
  }

  locate(pointer: string): SourceLocation | undefined {
    const root = this.parsed(this.rootFile);
    if (!root) return undefined;
    const found = this.walk(this.rootFile, root.doc.contents, segments(pointer));
    return this.lineOf(found.file, found.node);
  }
}
