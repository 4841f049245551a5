/**
 * Go's strings.ToUpper: each character to its single upper-case character,
 * where it has one. JavaScript's toUpperCase also expands some (`ß` to
 * `SS`, `ﬁ` to `FI`); Go leaves those as they are.
 */
export function goToUpper(text: string): string {
  let out = "";
  for (const char of text) {
    const upper = char.toUpperCase();
    out += upper.length === char.length ? upper : char;
  }
  return out;
}
