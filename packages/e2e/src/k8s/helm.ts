/**
 * helm, against the cluster, with its configuration, cache and data in the
 * cluster's directory (never the machine's): install a plugin's chart with
 * the image imported on the node, and what a release leaves behind.
 */
import { join } from "node:path";
import { localChartValues } from "@nri-ts/tools/deployment";
import { run } from "../exec.js";
import { repoDir } from "../paths.js";
import { timed } from "../timings.js";
import type { Cluster } from "./cluster.js";
import { k8sContext } from "./context.js";
import { PLUGIN_NAMESPACE } from "./plugins.js";

/** The chart of `packages/plugins/<plugin>`. */
export function chartDir(plugin: string): string {
  return join(repoDir, "packages", "plugins", plugin, "deploy", "helm");
}

/** Runs helm (without a cluster: `helm lint`, `helm template`, when `cluster` is undefined) and resolves to its stdout. */
export function helm(cluster: Cluster | undefined, args: readonly string[], home = cluster?.dir): Promise<string> {
  const dir = home ?? "/nonexistent";
  return run(k8sContext().helm, args, {
    env: {
      ...process.env,
      ...(cluster && { KUBECONFIG: cluster.plane.adminKubeconfig }),
      HELM_CONFIG_HOME: join(dir, "helm", "config"),
      HELM_CACHE_HOME: join(dir, "helm", "cache"),
      HELM_DATA_HOME: join(dir, "helm", "data"),
    },
    timeoutMs: 360_000,
  });
}

/** `helm install <release>` of the plugin's chart into kube-system, waiting for its DaemonSet to roll out. */
export async function helmInstallLocal(cluster: Cluster, plugin: string, release: string): Promise<string> {
  return timed(`${cluster.label}: helm install ${release} (${plugin})`, () =>
    helm(cluster, [
      ...["install", release, chartDir(plugin), "-n", PLUGIN_NAMESPACE],
      ...localChartValues(plugin),
      ...["--wait", "--timeout", "300s"],
    ]),
  );
}

/** What of the release is still there: its objects (by label) and helm's own record of it. */
export async function releaseLeftovers(cluster: Cluster, release: string): Promise<string[]> {
  const names = async (args: string[]) =>
    (await cluster.kubectl.run([...args, "-n", PLUGIN_NAMESPACE, "-o", "name"])).split("\n").filter(Boolean);
  return [
    ...(await names([
      "get",
      "daemonsets,pods,configmaps,serviceaccounts,secrets",
      "-l",
      `app.kubernetes.io/instance=${release}`,
    ])),
    ...(await names(["get", "secrets", "-l", `owner=helm,name=${release}`])),
  ];
}
