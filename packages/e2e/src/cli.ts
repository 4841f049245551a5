/**
 * `tsx src/cli.ts prefetch|build`: the tool builds outside vitest. CI starts
 * `prefetch`, then `build`, in the background right after `npm ci`, so that
 * the module downloads and the long compiles (Kubernetes above all) overlap
 * the rest of CI and the e2e step finds every tool in the cache. Both cover
 * the tiers `NRI_E2E_TIER` selects (default all).
 */
import { buildK8sTools, prefetchK8sTools } from "./k8s/setup.js";
import { selectedTiers } from "./tiers.js";
import { timed } from "./timings.js";
import { allSettled, buildToolset, prefetchToolset } from "./toolset.js";
import { NEWEST, selectedLines } from "./versions.js";

const command = process.argv[2];
const tiers = selectedTiers();
const lines = tiers.includes("containerd") ? selectedLines() : [NEWEST];
const k8s = tiers.includes("k8s");
if (command === "prefetch") {
  await timed("prefetch Go modules of the tools", () =>
    allSettled<unknown>([prefetchToolset(lines), k8s ? prefetchK8sTools() : Promise.resolve()]),
  );
} else if (command === "build") {
  const [toolset, kubernetes] = await timed("build the tools", () =>
    allSettled<unknown>([buildToolset(lines), k8s ? buildK8sTools() : Promise.resolve({})]),
  );
  console.log({ ...(toolset as object), ...(kubernetes as object) });
} else {
  console.error("usage: cli.ts prefetch|build");
  process.exit(2);
}
