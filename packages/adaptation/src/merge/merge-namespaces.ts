import type { LinuxNamespace } from "@nri-ts/api";
import { Field, parseRemovalMarker } from "@nri-ts/api";
import type { AdjustmentTarget } from "./merge-context.js";

/**
 * Namespaces, keyed by type. Every entry is a claim, removals (`-type`)
 * included, so two plugins touching one type always conflict. Each entry
 * goes into the reply as sent; the request copy's namespace of that type is
 * replaced or deleted. Go rebuilds the request's list from a map (random
 * order); here the container's order is kept and new types come last.
 */
export function mergeNamespaces(namespaces: readonly LinuxNamespace[], target: AdjustmentTarget): void {
  if (namespaces.length === 0) return;
  const { owners, id, plugin } = target;
  const byType = new Map<string, LinuxNamespace>();
  for (const namespace of target.container.linux.namespaces) byType.set(namespace.type, namespace);

  for (const namespace of namespaces) {
    const { key, marked } = parseRemovalMarker(namespace.type);
    owners.claimEntry(id, Field.Namespace, key, plugin);
    if (marked) byType.delete(key);
    else byType.set(key, namespace);
    target.reply.linux.namespaces.push(namespace);
  }

  target.container.linux.namespaces = [...byType.values()];
}
