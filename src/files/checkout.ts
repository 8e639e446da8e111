/**
 * The one reader of files a checkout controls (issue 32): the spec's files, the config file, the
 * baseline and report artefacts. A pull request writes these, so each is input to judge, never a
 * path to follow: the file is read only when, after realpath (symlinks resolved), it is a regular
 * file inside the directory it is confined to, not a kernel or device file, and no larger than its
 * cap, which is checked before and while reading (a file that grows is refused too). A FIFO is
 * never waited on, /dev/zero or /proc/self/environ never read.
 *
 * The directory a file is confined to: the working directory when the path as given lies inside it
 * (a symlink committed in the checkout may not lead out of it), else the directory the path names
 * (the workflow named a file elsewhere; it still may not link out of its own folder). The spec's
 * `$ref`s are confined to the spec's folder by their caller.
 *
 * A refusal is one `VapcError` that names the file (as given, escaped and cut) and the rule it
 * broke, and never quotes what the file holds; `excerpt` is the only way text of a file goes into a
 * message: short, one line, every control character escaped.
 */
import {
  closeSync,
  constants,
  createReadStream,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { VapcError, type ErrorCode } from '../errors.js';
import { clip, excerpt, printable } from '../results/printable.js';

/** How one read is named and bounded. */
export interface CheckoutFileOptions {
  /** How messages name the file, e.g. `config file vapc.yaml` or `$ref "a.yaml"`. */
  label: string;
  /** The most bytes the file may have. */
  maxBytes: number;
  /** What the cap is for, in its refusal: `a spec file` says "more than the N a spec file may have" (default `it`). */
  capOf?: string;
  /** The code of a refusal (a rule broken). */
  code: ErrorCode;
  /** The code when the file does not exist (default `code`). */
  missingCode?: ErrorCode;
  /** What a missing file's message says after the label (default `no such file`). */
  missing?: string;
  /** The directory the file must stay inside after realpath (default `confinementOf(path, cwd)`). */
  within?: string;
  /** The working directory relative paths start from (default process.cwd()). */
  cwd?: string;
}

/** Kernel and device trees: never read, whatever a link or an argument says. */
const SPECIAL_ROOTS = ['/proc', '/sys', '/dev'];

/** A name as a message shows it: one line, control characters escaped, at most 200 characters. */
export const shownName = (text: string): string => clip(printable(text), 200);

export { excerpt };

/** True when `file` is `folder` or lies under it (both absolute and normalised). */
export function isInside(folder: string, file: string): boolean {
  return file === folder || file.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/** `path` after realpath, or undefined when it (or a link on the way) does not resolve. */
export function realpathOf(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The directory a path is confined to: the working directory when the path as given lies inside
 * it, else the directory the path names.
 */
export function confinementOf(path: string, cwd: string = process.cwd()): string {
  const absolute = resolve(cwd, path);
  return isInside(resolve(cwd), absolute) ? resolve(cwd) : dirname(absolute);
}

const isSpecial = (real: string): boolean => SPECIAL_ROOTS.some((root) => isInside(root, real));

/** What kind of file a stat describes, for a refusal (a socket cannot be opened at all: ENXIO). */
function kindOf(info: { isDirectory(): boolean; isFIFO(): boolean }): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO';
  return 'a device';
}

/**
 * Where a path really is, or the refusal: it must exist, resolve inside `within` (after realpath
 * of both) and not be a kernel or device file.
 */
function locate(path: string, options: CheckoutFileOptions): string {
  const cwd = options.cwd ?? process.cwd();
  const absolute = resolve(cwd, path);
  const within = options.within ?? confinementOf(path, cwd);
  const real = realpathOf(absolute);
  if (real === undefined) {
    const broken = isSymlink(absolute);
    throw new VapcError(
      broken ? options.code : (options.missingCode ?? options.code),
      `${options.label}: ${broken ? 'refused: a symlink that leads nowhere (or in a loop)' : (options.missing ?? 'no such file')}`,
    );
  }
  const root = realpathOf(within) ?? resolve(within);
  if (!isInside(root, real))
    throw new VapcError(
      options.code,
      `${options.label}: refused: it leads outside ${shownName(within)} (symlinks resolved); a file the checkout controls is read only inside it`,
    );
  if (isSpecial(real))
    throw new VapcError(options.code, `${options.label}: refused: a kernel or device file is never read`);
  return real;
}

/** True when `path` itself is a symlink (one that may lead nowhere). */
function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Opens a file the checkout controls for reading, within its confinement, and checks what the open
 * file is: a regular file no larger than its cap. Returns the descriptor and the size; the caller
 * closes it (on a refusal it is closed here).
 */
function openChecked(path: string, options: CheckoutFileOptions): { fd: number; size: number } {
  const real = locate(path, options);
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO must not wait for a writer (fstat refuses it below); O_NOFOLLOW: the
    // checked path cannot be swapped for a link between the check and the open.
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    const why = code === 'ENXIO' ? 'refused: a socket, not a regular file' : `cannot be opened (${code})`;
    throw new VapcError(options.code, `${options.label}: ${why}`);
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile())
      throw new VapcError(options.code, `${options.label}: refused: ${kindOf(info)}, not a regular file`);
    if (info.size > options.maxBytes)
      throw new VapcError(
        options.code,
        `${options.label}: refused: ${info.size} bytes, more than the ${options.maxBytes} ${options.capOf ?? 'it'} may have`,
      );
    return { fd, size: info.size };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * Reads a file the checkout controls, within its confinement and cap (see the module comment).
 * Returns its text (UTF-8); any rule broken throws a VapcError naming the file and the rule.
 */
export function readCheckoutFile(path: string, options: CheckoutFileOptions): string {
  const { fd } = openChecked(path, options);
  try {
    const max = options.maxBytes;
    const capOf = options.capOf ?? 'it';
    const buffer = Buffer.alloc(max + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length > max)
        throw new VapcError(options.code, `${options.label}: refused: more than the ${max} bytes ${capOf} may have`);
    }
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** `path` with symlinks resolved as far as it exists: the realpath of its nearest existing ancestor, then the rest. */
export function resolvedPath(path: string): string {
  const absolute = resolve(path);
  let existing = absolute;
  while (realpathOf(existing) === undefined && dirname(existing) !== existing) existing = dirname(existing);
  const real = realpathOf(existing) ?? existing;
  return existing === absolute ? real : resolve(real, absolute.slice(existing.length + 1));
}

/**
 * Why a directory to write into (a report directory) may not be used, or undefined: one that
 * resolves (through a symlink on its way, committed in the checkout) outside its confinement.
 */
export function directoryRefusal(dir: string, cwd: string = process.cwd()): string | undefined {
  const within = resolvedPath(confinementOf(dir, cwd));
  if (isInside(within, resolvedPath(resolve(cwd, dir)))) return undefined;
  return `${shownName(dir)} leads outside ${shownName(confinementOf(dir, cwd))} (symlinks resolved); name a directory inside it`;
}

/**
 * Streams a file the checkout controls (a recording too large to read whole), under the same rules
 * as `readCheckoutFile`: confined, a regular file, no larger than its cap when opened and while
 * read (a file that grows past it is refused mid-stream). Yields its bytes in chunks.
 */
export function streamCheckoutFile(path: string, options: CheckoutFileOptions): AsyncIterable<Buffer> {
  const { fd } = openChecked(path, options);
  const stream = createReadStream('', { fd, autoClose: true, highWaterMark: 256 * 1024 });
  return {
    async *[Symbol.asyncIterator]() {
      let length = 0;
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          length += chunk.length;
          if (length > options.maxBytes)
            throw new VapcError(
              options.code,
              `${options.label}: refused: more than the ${options.maxBytes} bytes ${options.capOf ?? 'it'} may have`,
            );
          yield chunk;
        }
      } finally {
        stream.destroy();
      }
    },
  };
}

/**
 * The regular files directly in a directory the checkout controls whose names `keep` accepts, in
 * name order (each still to be opened through `streamCheckoutFile` or `readCheckoutFile`). The
 * directory itself is located under the same rules as a file: confined, symlinks resolved.
 */
export function checkoutDirectoryFiles(
  path: string,
  options: Pick<CheckoutFileOptions, 'label' | 'code' | 'cwd' | 'within'>,
  keep: (name: string) => boolean,
  maxFiles = 10_000,
): string[] {
  const real = locate(path, { ...options, maxBytes: 0 });
  if (!statSync(real).isDirectory()) throw new VapcError(options.code, `${options.label}: refused: not a directory`);
  const names = readdirSync(real, { withFileTypes: true })
    .filter((d) => d.isFile() && keep(d.name))
    .map((d) => d.name)
    .sort();
  if (names.length > maxFiles)
    throw new VapcError(options.code, `${options.label}: refused: more than ${maxFiles} files to read`);
  return names.map((name) => resolve(real, name));
}
