/**
 * Unicode classes as Go decides them, from Go's own tables (see
 * go-unicode-tables.ts): the JavaScript engine's Unicode may be newer
 * (Node.js 22, 24 and 26 know Unicode 17), and a rune that is a letter to it may be
 * none to Go.
 */
import { GO_DIGIT, GO_LETTER, GO_PRINT } from "./go-unicode-tables.js";

/** Sorted [start, end] pairs, flattened. */
function decode(table: string): Uint32Array {
  const numbers = table.split(",").map((n) => Number.parseInt(n, 36));
  const ranges = new Uint32Array(numbers.length);
  let at = -1;
  for (let i = 0; i < numbers.length; i += 2) {
    const start = at + 1 + numbers[i];
    at = start + numbers[i + 1];
    ranges[i] = start;
    ranges[i + 1] = at;
  }
  return ranges;
}

function member(ranges: Uint32Array): (rune: string) => boolean {
  return (rune) => {
    const code = rune.codePointAt(0) as number;
    let low = 0;
    let high = ranges.length / 2 - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      if (code < ranges[2 * mid]) high = mid - 1;
      else if (code > ranges[2 * mid + 1]) low = mid + 1;
      else return true;
    }
    return false;
  };
}

/** Go's strconv.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
export const isGoPrint = member(decode(GO_PRINT));
/** Go's unicode.IsLetter. */
export const isGoLetter = member(decode(GO_LETTER));
/** Go's unicode.IsDigit (decimal digits of every script). */
export const isGoDigit = member(decode(GO_DIGIT));
