/**
 * The JSON that sigs.k8s.io/yaml hands Go's encoding/json, between the two
 * steps of decoding: numbers keep the text Go's encoder writes for them,
 * objects keep their keys as written.
 */

/** A JSON number as Go's encoder writes it; `unsupported` for the floats JSON cannot hold (infinities, NaN). */
export class JsonNumber {
  constructor(
    readonly text: string,
    readonly unsupported = false,
  ) {}
}

export type Json = null | boolean | string | JsonNumber | Json[] | Map<string, Json>;

/** Byte order of UTF-8 text (which is code point order), the order in which Go's encoder writes an object's keys. */
export function compareBytes(a: string, b: string): number {
  for (let i = 0; i < a.length && i < b.length; i++) {
    const x = a.codePointAt(i) as number;
    const y = b.codePointAt(i) as number;
    if (x !== y) return x - y;
  }
  return a.length - b.length;
}

/** The keys of an object in the order Go's encoder writes them. */
export function sortedKeys(object: Map<string, Json>): string[] {
  return [...object.keys()].sort(compareBytes);
}
