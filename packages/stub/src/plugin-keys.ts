/**
 * The keys a plugin object may have, and the ones it has that are none of
 * them: a misspelled handler (`stopContainr`) would otherwise register
 * silently without its event.
 */
import type { Plugin } from "./plugin.js";
import { HANDLER_EVENTS } from "./subscription.js";

/** Every key of {@link Plugin}: the lifecycle handlers and configure, synchronize, shutdown. */
export const PLUGIN_KEYS: readonly (keyof Plugin)[] = [
  "configure",
  "synchronize",
  "shutdown",
  ...(Object.keys(HANDLER_EVENTS) as (keyof typeof HANDLER_EVENTS)[]),
];

/** A key of a plugin object that is no handler, and the handler name nearest to it. */
export interface UnknownPluginKey {
  key: string;
  nearest: keyof Plugin;
}

/** Edits (insert, delete, replace, case aside) from `a` to `b`. */
function distance(a: string, b: string): number {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) {
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[y.length];
}

/**
 * The handler name nearest to `key`: the shortest one holding it (`postStart`
 * is short for postStartContainer), else the fewest edits away.
 */
export function nearestPluginKey(key: string): keyof Plugin {
  // a key is compared by its first 64 characters: nobody misspells a handler longer than that
  const head = key.slice(0, 64);
  const holding = PLUGIN_KEYS.filter((candidate) => candidate.toLowerCase().includes(head.toLowerCase()));
  if (head !== "" && holding.length > 0) return holding.reduce((a, b) => (b.length < a.length ? b : a));
  let best = PLUGIN_KEYS[0];
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of PLUGIN_KEYS) {
    const d = distance(head, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

/** The plugin object's own keys that are no handler, each with the nearest handler name, in the object's order. */
export function unknownPluginKeys(plugin: object): UnknownPluginKey[] {
  const known = new Set<string>(PLUGIN_KEYS);
  return Object.keys(plugin)
    .filter((key) => !known.has(key))
    .map((key) => ({ key, nearest: nearestPluginKey(key) }));
}

/** `stopContainr (did you mean stopContainer?)`, for messages. */
export function describeUnknownKey({ key, nearest }: UnknownPluginKey): string {
  return `${JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key)} (did you mean ${nearest}?)`;
}
