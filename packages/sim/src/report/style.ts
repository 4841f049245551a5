/**
 * Terminal colour, written as ANSI codes. On when the output is a terminal,
 * off otherwise; `NO_COLOR` (any non-empty value) turns it off and
 * `FORCE_COLOR` turns it on (`FORCE_COLOR=0` off), as most tools agree.
 */

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

export function colorWanted(
  stream: { isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  if (env.NO_COLOR) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force.toLowerCase() !== "false";
  return stream.isTTY === true && env.TERM !== "dumb";
}

function sgr(open: number, close: number): (text: string) => string {
  return (text) => (text === "" ? text : `\x1b[${open}m${text}\x1b[${close}m`);
}

const identity = (text: string) => text;

export function makeStyle(color: boolean): Style {
  if (!color)
    return { bold: identity, dim: identity, red: identity, green: identity, yellow: identity, cyan: identity };
  return {
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
  };
}

export const plainStyle: Style = makeStyle(false);
