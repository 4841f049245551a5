/**
 * The `-indices` list, read as the Go differ reads it: at least one comma,
 * each entry an integer by strconv.Atoi (an entry that is not one counts as
 * 0), formatted as `%02d` for the index to register at. The order of the
 * list is the order of the chain: each index diffs what the one before it
 * in the list saw.
 */

/** Go's text when the list has no comma. */
export const TOO_FEW_INDICES = "There must be at least two index given.";

export class IndicesError extends Error {
  override readonly name = "IndicesError";
}

/** strconv.Atoi, with Go's error turned into 0 as the Go differ does: a sign and decimal digits, within 64 bits. */
function atoiOrZero(text: string): number {
  if (!/^[+-]?[0-9]+$/.test(text)) return 0;
  const value = BigInt(text);
  return value < -(2n ** 63n) || value >= 2n ** 63n ? 0 : Number(value);
}

/** The indices of the list, in its order (repeats kept). @throws IndicesError without a comma */
export function parseIndices(list: string): number[] {
  if (!list.includes(",")) throw new IndicesError(TOO_FEW_INDICES);
  return list.split(",").map(atoiOrZero);
}

/** An index as the plugin registers it: Go's `%02d`. */
export function registeredIndex(index: number): string {
  return index < 0 ? `-${String(-index)}` : String(index).padStart(2, "0");
}
