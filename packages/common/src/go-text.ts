/**
 * The pieces of Go's text handling whose results reach users: `%q` quoting
 * of strings and characters in error texts, strings.TrimSpace, and
 * strconv.ParseBool for annotations. Texts made with them match what the Go
 * reference prints, for every input.
 */
import { isGoPrint } from "./go-unicode.js";

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  "\x07": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
  "\\": "\\\\",
};

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, "0");
}

function quoteWith(text: string, quote: "'" | '"'): string {
  let out = quote;
  for (const char of text) {
    if (char === quote) {
      out += `\\${char}`;
      continue;
    }
    const short = SHORT_ESCAPES[char];
    if (short !== undefined) {
      out += short;
      continue;
    }
    let code = char.codePointAt(0) ?? 0;
    // A lone surrogate cannot travel as UTF-8; it arrives as U+FFFD.
    if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
    const normalized = String.fromCodePoint(code);
    if (isGoPrint(normalized)) out += normalized;
    else if (code < 0x80) out += `\\x${hex(code, 2)}`;
    else if (code < 0x10000) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return out + quote;
}

/** A string quoted as Go's strconv.Quote (and so `%q` of a string) quotes it. */
export function goQuote(text: string): string {
  return quoteWith(text, '"');
}

/** One character quoted as Go's strconv.QuoteRune (and so `%q` of a rune) quotes it. */
export function goQuoteRune(char: string): string {
  return quoteWith(char, "'");
}

/** Go's unicode.IsSpace set: unlike String.prototype.trim, U+0085 is space and U+FEFF is not. */
const GO_SPACE = "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const GO_TRIM = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, "gu");

/** Go's strings.TrimSpace. */
export function goTrimSpace(text: string): string {
  return text.replace(GO_TRIM, "");
}

const TRUE = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const FALSE = new Set(["0", "f", "F", "FALSE", "false", "False"]);

/** Thrown by parseGoBool with Go's text for a value it does not accept. */
export class ParseBoolError extends Error {
  override readonly name = "ParseBoolError";
  constructor(readonly value: string) {
    super(`strconv.ParseBool: parsing ${goQuote(value)}: invalid syntax`);
  }
}

/** Go's strconv.ParseBool: 1, t, T, TRUE, true, True and their false twins. */
export function parseGoBool(value: string): boolean {
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  throw new ParseBoolError(value);
}
