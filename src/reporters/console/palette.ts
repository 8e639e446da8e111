/** The console's colours: ANSI SGR codes on a TTY with colour, plain text otherwise. */

export type Paint = (s: string) => string;
export interface Palette {
  red: Paint;
  green: Paint;
  yellow: Paint;
  dim: Paint;
  bold: Paint;
  cyan: Paint;
}
const ansi =
  (open: number, close: number): Paint =>
  (s) =>
    `\x1b[${open}m${s}\x1b[${close}m`;
const plain: Paint = (s) => s;
export function palette(color: boolean): Palette {
  if (!color) return { red: plain, green: plain, yellow: plain, dim: plain, bold: plain, cyan: plain };
  return {
    red: ansi(31, 39),
    green: ansi(32, 39),
    yellow: ansi(33, 39),
    dim: ansi(2, 22),
    bold: ansi(1, 22),
    cyan: ansi(36, 39),
  };
}
