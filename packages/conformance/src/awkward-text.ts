/**
 * Text made to trip YAML writers and log formats: pieces that change how
 * go-yaml quotes a scalar (indicators, YAML 1.1 booleans and numbers,
 * timestamps, base-60 floats), every line break YAML knows, runes it
 * escapes or refuses, Unicode beyond the BMP, words long enough to be
 * wrapped at 80 columns, keys near go-yaml's 1024-rune limit.
 */
import fc from "fast-check";

export const PIECES = [
  "",
  " ",
  "  ",
  ":",
  ": ",
  "#",
  " #",
  "-",
  "- ",
  "---",
  "...",
  "?",
  "? ",
  "'",
  '"',
  "\\",
  "\n",
  "\n\n",
  "\r",
  "\t",
  "\u0085",
  "\u2028",
  "\u2029",
  "\u00a0",
  "\ufeff",
  "\u0000",
  "\u0007",
  "\u001b",
  "😀",
  "ü",
  "中",
  "yes",
  "No",
  "on",
  "~",
  "null",
  "True",
  "1",
  "-1",
  "0x1F",
  "08",
  "1e3",
  ".5",
  "1:20",
  "2024-01-15",
  "2024-1-5T1:2:3Z",
  "2024-01-15 10:00:00.5",
  "<<",
  "&a",
  "*a",
  "!x",
  "%",
  "@",
  "`",
  "{",
  "}",
  "[",
  "]",
  ",",
  "|",
  ">",
  "<",
  "&",
  "a",
  "word",
  "x y",
  "appVersion",
  "app.kubernetes.io/name",
  "logger-pid-42",
];

/** Runes go-yaml refuses in its input: DEL, C1 controls, U+FFFE and U+FFFF. */
export const REFUSED_RUNES = ["\u007f", "\u0080", "\u009f", "\ufffe", "\uffff"];

export interface AwkwardTextOptions {
  /** Whether to produce runes go-yaml refuses (default yes). */
  refused?: boolean;
  /** Whether to produce keys around go-yaml's 1024-rune limit (default yes). */
  long?: boolean;
}

export function awkwardText(options: AwkwardTextOptions = {}): fc.Arbitrary<string> {
  const pieces = options.refused === false ? PIECES : [...PIECES, ...REFUSED_RUNES];
  return fc.oneof(
    { weight: 6, arbitrary: fc.array(fc.constantFrom(...pieces), { maxLength: 8 }).map((parts) => parts.join("")) },
    {
      weight: 2,
      arbitrary: fc
        .string({ unit: "binary", maxLength: 12 })
        .filter((t) => options.refused !== false || !REFUSED_RUNES.some((r) => t.includes(r))),
    },
    {
      weight: 2,
      arbitrary: fc
        .array(fc.constantFrom("word", "x", "a-b", "  ", " ", "'", '"', ":", "#", "\t", "\n", "é"), {
          minLength: 20,
          maxLength: 80,
        })
        .map((w) => w.join(" ")),
    },
    {
      weight: options.long === false ? 0 : 1,
      arbitrary: fc.integer({ min: 1010, max: 1030 }).map((n) => "k".repeat(n)),
    },
    {
      weight: 1,
      arbitrary: fc.oneof(fc.bigInt().map(String), fc.double({ noNaN: true, noDefaultInfinity: true }).map(String)),
    },
  );
}
