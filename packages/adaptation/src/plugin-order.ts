/** What orders plugins. */
export interface Ordered {
  readonly index: string;
  readonly name: string;
  /** When the adaptation took the plugin on: launched in file order, then each connection as accepted. */
  readonly sequence: number;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The invocation order: by index (`00` first), as in Go. Go's sort is not
 * stable, so plugins with the same index come in no particular order there;
 * here they are ordered by name, then by when they were taken on.
 */
export function comparePlugins(a: Ordered, b: Ordered): number {
  return compareStrings(a.index, b.index) || compareStrings(a.name, b.name) || a.sequence - b.sequence;
}
