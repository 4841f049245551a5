/**
 * Removal markers. In an adjustment a key, destination, path or namespace
 * type that starts with '-' asks for the removal of the unmarked item. Only
 * the first character is a marker: "--x" removes "-x". The empty string is
 * never marked.
 */

/** The key without its marker, and whether it had one. */
export interface MarkedKey {
  readonly key: string;
  readonly marked: boolean;
}

export function parseRemovalMarker(key: string): MarkedKey {
  if (key.startsWith("-")) return { key: key.slice(1), marked: true };
  return { key, marked: false };
}

export function markForRemoval(key: string): string {
  return `-${key}`;
}
