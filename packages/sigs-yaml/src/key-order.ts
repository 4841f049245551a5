/**
 * The order in which go-yaml v2 writes the keys of a map: not byte order
 * but a "natural" one. At the first rune where two keys differ, letters
 * (Go's, of Unicode 15.0) come after everything else and compare by code
 * point; runs of digits compare by their value (`a2` before `a10`), then by
 * length (`a1` before `a01`); any other runes compare by code point. A key
 * that is a prefix of another comes first.
 */
import { isGoDigit, isGoLetter } from "@nri-ts/common";

const isLetter = (rune: string | undefined) => rune !== undefined && isGoLetter(rune);
const isDigit = (rune: string | undefined) => rune !== undefined && isGoDigit(rune);

/** The value of the digit run starting at `start`, as Go's int64 arithmetic computes it (wrapping, any Unicode digit counted from '0'). */
function digitRun(runes: readonly string[], start: number, initial: bigint): [value: bigint, end: number] {
  let value = initial;
  let end = start;
  for (; end < runes.length && isDigit(runes[end]); end++) {
    value = BigInt.asIntN(64, value * 10n + BigInt((runes[end].codePointAt(0) as number) - 48));
  }
  return [value, end];
}

function less(ar: readonly string[], br: readonly string[]): boolean {
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]);
    const bl = isLetter(br[i]);
    if (al && bl) return (ar[i].codePointAt(0) as number) < (br[i].codePointAt(0) as number);
    if (al || bl) return bl;
    // A run of digits that goes on from non-zero digits before it is no leading zero.
    let initial = 0n;
    if (ar[i] === "0" || br[i] === "0") {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== "0") {
          initial = 1n;
          break;
        }
      }
    }
    const [an, ai] = digitRun(ar, i, initial);
    const [bn, bi] = digitRun(br, i, initial);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return (ar[i].codePointAt(0) as number) < (br[i].codePointAt(0) as number);
  }
  return ar.length < br.length;
}

/** go-yaml v2's keyList.Less for two string keys. */
export function yamlKeyLess(a: string, b: string): boolean {
  return less([...a], [...b]);
}

/** Keys in go-yaml v2's order (a total order for the keys one map can hold in practice; see the README). */
export function sortYamlKeys(keys: readonly string[]): string[] {
  const runes = keys.map((key) => ({ key, runes: [...key] }));
  runes.sort((a, b) => (less(a.runes, b.runes) ? -1 : less(b.runes, a.runes) ? 1 : 0));
  return runes.map(({ key }) => key);
}
