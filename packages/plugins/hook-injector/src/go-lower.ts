/**
 * Go's strings.ToLower: each character to its single lower-case character.
 * JavaScript's toLowerCase turns `İ` into two characters (`i̇`) and reads
 * `Σ` by its context; Go maps `İ` to `i` and every `Σ` to `σ`.
 */
export function goToLower(text: string): string {
  let out = "";
  for (const char of text) {
    if (char === "\u0130") out += "i";
    else out += char.toLowerCase();
  }
  return out;
}
