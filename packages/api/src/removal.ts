/**
 * Removal markers. In a container adjustment, an annotation or sysctl key, a
 * mount destination, a device path, an environment variable name, a
 * namespace type or a host network interface that starts with `-` asks the
 * runtime to remove that item instead of adding it. Only the first `-` is a
 * marker; the empty string is never marked.
 */

/** `"-" + key`: the key as a removal marker. */
export function markForRemoval(key: string): string {
  return `-${key}`;
}

/** Whether the key is a removal marker. */
export function isMarkedForRemoval(key: string): boolean {
  return key.startsWith("-");
}

/** The key without its removal marker (unchanged when it has none). */
export function clearRemovalMarker(key: string): string {
  return isMarkedForRemoval(key) ? key.slice(1) : key;
}

/** A key read as a possible removal marker: the unmarked key, and whether it was marked. */
export interface MarkedKey {
  readonly key: string;
  readonly marked: boolean;
}

/** Splits a key into its unmarked form and whether it asked for a removal. */
export function parseRemovalMarker(key: string): MarkedKey {
  const marked = isMarkedForRemoval(key);
  return { key: marked ? key.slice(1) : key, marked };
}
