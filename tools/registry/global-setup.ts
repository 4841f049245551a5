/**
 * `npm run test:registry` (after `npm run build`): a registry of our own,
 * then the first release to it (0.1.0, as RELEASING.md's "The first
 * release" says), from a throwaway copy of the tree. The tests then act as users, with nothing but the
 * registry's address.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { copyTree, foldChangesets, publish, type Versioned } from "./release.js";
import { type Registry, startRegistry } from "./registry.js";

export interface Released {
  registry: Omit<Registry, "stop">;
  /** The copy of the tree the release was made from (its second release too). */
  tree: string;
  work: string;
  first: Versioned & { tags: string[] };
}

declare module "vitest" {
  export interface ProvidedContext {
    released: Released;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const work = mkdtempSync(join(tmpdir(), "nri-registry-"));
  const registry = await startRegistry(join(work, "registry"));
  const tree = join(work, "tree");
  copyTree(tree);
  const versioned = foldChangesets(tree);
  const tags = await publish(tree, registry);
  const { stop, ...rest } = registry;
  project.provide("released", { registry: rest, tree, work, first: { ...versioned, tags } });
  console.log(
    `registry ${registry.url}: ${tags.length} packages published in ${Math.round((Date.now() - started) / 1000)} s`,
  );
  return async () => {
    await stop();
    if (!process.env.NRI_REGISTRY_KEEP) rmSync(work, { recursive: true, force: true });
    else console.log(`kept ${work} (NRI_REGISTRY_KEEP)`);
  };
}
