/** The Kubernetes tier's tools for the global setup and the CLI: built (or found in the cache) with the rest. */
import { join } from "node:path";
import { buildTool, prefetchTool } from "../tools.js";
import { allSettled, goLimit } from "../toolset.js";
import type { K8sTools } from "./context.js";
import { cniTool, helmTool, kubernetesTool } from "./tools.js";

/** Kubernetes, helm and the CNI plugins, through the same two-at-a-time limit as every Go build; Kubernetes first. */
export async function buildK8sTools(): Promise<Pick<K8sTools, "kubernetes" | "helm" | "cni">> {
  const [kubernetes, helm, cni] = await allSettled([
    buildTool(await kubernetesTool(), goLimit),
    buildTool(helmTool, goLimit),
    buildTool(cniTool, goLimit),
  ]);
  return { kubernetes, helm: join(helm, "helm"), cni };
}

/** Downloads their modules (network-bound, so no limit). */
export async function prefetchK8sTools(): Promise<void> {
  await allSettled([kubernetesTool().then(prefetchTool), prefetchTool(helmTool), prefetchTool(cniTool)]);
}
