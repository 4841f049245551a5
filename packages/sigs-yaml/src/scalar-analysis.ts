/**
 * What go-yaml v2's emitter learns about a scalar before it picks a style
 * for it (libyaml's analysis, which go-yaml v2 ports): whether it spans
 * lines, and which styles can hold it: plain (in block context: flow
 * collections are only ever empty here), single-quoted, literal block.
 */

export interface ScalarAnalysis {
  readonly multiline: boolean;
  readonly blockPlain: boolean;
  readonly singleQuoted: boolean;
  readonly block: boolean;
}

/** Line breaks as YAML 1.1 knows them: CR, LF, NEL, LS, PS. */
export const isBreak = (rune: string | undefined) =>
  rune === "\n" || rune === "\r" || rune === "\u0085" || rune === "\u2028" || rune === "\u2029";
export const isBlank = (rune: string | undefined) => rune === " " || rune === "\t";
const isBlankOrEnd = (rune: string | undefined) => isBlank(rune) || isBreak(rune) || rune === "\0";

/**
 * The runes go-yaml v2 writes as they are: LF, printable ASCII, and the
 * BMP from U+00A0 without surrogates, U+FEFF, U+FFFE and U+FFFF. Runes
 * beyond the BMP count as unprintable (its check looks at UTF-8 lead bytes
 * up to three bytes long), so they are escaped in double quotes.
 */
export function isPrintable(rune: string): boolean {
  const c = rune.codePointAt(0) as number;
  return (
    c === 0x0a || (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff)
  );
}

/** Runes that make plain text impossible in block context when it starts with them. */
const BLOCK_INDICATORS_FIRST = new Set([
  "#",
  ",",
  "[",
  "]",
  "{",
  "}",
  "&",
  "*",
  "!",
  "|",
  ">",
  "'",
  '"',
  "%",
  "@",
  "`",
]);

export function analyzeScalar(runes: readonly string[]): ScalarAnalysis {
  if (runes.length === 0) return { multiline: false, blockPlain: true, singleQuoted: true, block: false };
  const head = runes.slice(0, 3).join("");
  let blockIndicators = head === "---" || head === "...";
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  let precededByWhitespace = true;

  runes.forEach((rune, i) => {
    const followedByWhitespace = i + 1 >= runes.length || isBlank(runes[i + 1]);
    if (i === 0) {
      if (BLOCK_INDICATORS_FIRST.has(rune)) blockIndicators = true;
      else if ((rune === "?" || rune === ":" || rune === "-") && followedByWhitespace) blockIndicators = true;
    } else if ((rune === ":" && followedByWhitespace) || (rune === "#" && precededByWhitespace)) {
      blockIndicators = true;
    }

    if (!isPrintable(rune)) special = true;
    const last = i === runes.length - 1;
    if (rune === " ") {
      if (i === 0) leadingSpace = true;
      if (last) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(rune)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (last) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlankOrEnd(rune);
  });

  let blockPlain = true;
  let singleQuoted = true;
  let block = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) blockPlain = false;
  if (trailingSpace) block = false;
  if (breakSpace) blockPlain = singleQuoted = false;
  if (spaceBreak || special) blockPlain = singleQuoted = block = false;
  if (lineBreaks || blockIndicators) blockPlain = false;
  return { multiline: lineBreaks, blockPlain, singleQuoted, block };
}
