/**
 * Our plugins as an operator deploys them: `kubectl apply -k` of a
 * plugin's local overlay (its image, imported on the node, with
 * `imagePullPolicy: Never`: the documented override, nothing else), or an
 * overlay of one's own on top of it; `kubectl rollout status`; the
 * registration in the plugin's log (`kubectl logs`).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { repoDir } from "../paths.js";
import { timed } from "../timings.js";
import type { Cluster } from "./cluster.js";

export const PLUGIN_NAMESPACE = "kube-system";

/** The local overlay of `packages/plugins/<plugin>`. */
export function localOverlay(plugin: string): string {
  return join(repoDir, "packages", "plugins", plugin, "deploy", "kustomize", "overlays", "local");
}

/**
 * An overlay of ours on top of the plugin's local overlay, as an operator
 * writes one to change the plugin's flags: `args` replace the DaemonSet's.
 */
export function argsOverlay(plugin: string, dir: string, args: readonly string[]): string {
  const overlay = mkdtempSync(join(dir, `overlay-${plugin}-`));
  // kustomize takes bases by relative path only
  writeFileSync(
    join(overlay, "kustomization.yaml"),
    JSON.stringify({
      apiVersion: "kustomize.config.k8s.io/v1beta1",
      kind: "Kustomization",
      resources: [relative(overlay, localOverlay(plugin))],
      patches: [
        {
          target: { kind: "DaemonSet" },
          patch: JSON.stringify([{ op: "replace", path: "/spec/template/spec/containers/0/args", value: args }]),
        },
      ],
    }),
  );
  return overlay;
}

/**
 * `kubectl rollout status` of the plugin's DaemonSet, as a phase of the
 * run's timings; a rollout that does not end fails with what
 * `kubectl describe` says of the DaemonSet's pods.
 */
export async function rolledOut(cluster: Cluster, plugin: string, daemonSet = `nri-plugin-${plugin}`): Promise<void> {
  await timed(`${cluster.label}: rollout ${daemonSet}`, async () => {
    try {
      await cluster.kubectl.run(
        ["rollout", "status", `daemonset/${daemonSet}`, "-n", PLUGIN_NAMESPACE, "--timeout=180s"],
        {
          timeoutMs: 190_000,
        },
      );
    } catch (error) {
      const selector = await cluster.kubectl
        .run(["get", "daemonset", daemonSet, "-n", PLUGIN_NAMESPACE, "-o", "jsonpath={.spec.selector.matchLabels}"])
        .then((labels) =>
          Object.entries(JSON.parse(labels) as Record<string, string>)
            .map(([key, value]) => `${key}=${value}`)
            .join(","),
        )
        .catch(() => "");
      const pods = await cluster.kubectl
        .run(["describe", "pods", "-n", PLUGIN_NAMESPACE, "-l", selector])
        .catch((e: Error) => e.message);
      throw new Error(`${(error as Error).message}\nkubectl describe pods -l ${selector}:\n${pods}`, { cause: error });
    }
  });
}

/** `kubectl apply -k <dir>`, then its DaemonSet's rollout, and its pods' registration with the runtime. */
export async function applyKustomization(cluster: Cluster, plugin: string, dir = localOverlay(plugin)): Promise<void> {
  await cluster.kubectl.run(["apply", "-k", dir]);
  await rolledOut(cluster, plugin);
  await registered(cluster, `app.kubernetes.io/name=nri-plugin-${plugin}`, plugin);
}

/** The pods of the plugin's DaemonSet, by node name. */
export async function pluginPods(
  cluster: Cluster,
  selector: string,
): Promise<{ name: string; node: string; restarts: number; uid: string }[]> {
  const list = await cluster.kubectl.json<{
    items: {
      metadata: { name: string; uid: string; deletionTimestamp?: string };
      spec: { nodeName?: string };
      status?: { containerStatuses?: { restartCount: number }[] };
    }[];
  }>(["get", "pods", "-n", PLUGIN_NAMESPACE, "-l", selector]);
  return list.items
    .filter((pod) => !pod.metadata.deletionTimestamp)
    .map((pod) => ({
      name: pod.metadata.name,
      uid: pod.metadata.uid,
      node: pod.spec.nodeName ?? "",
      restarts: pod.status?.containerStatuses?.[0]?.restartCount ?? 0,
    }));
}

/**
 * Waits until the log of each pod of `selector` that is not going away (or
 * of the pod named) says the plugin registered: the stub's `started plugin
 * NN-name`, where `name` is `NN-name` or, for any index, `name`; resolves
 * to the names registered (of the last pod).
 */
export async function registered(
  cluster: Cluster,
  selector: string,
  name: string,
  options: { pod?: string; timeoutMs?: number } = {},
): Promise<string[]> {
  const pattern = new RegExp(`started plugin (${/^\d+-/.test(name) ? name : `\\d+-${name}`})\\b`, "g");
  return cluster.kubectl.until(
    `the registration of ${name} in kubectl logs of ${options.pod ?? selector}`,
    async () => {
      const pods = options.pod ? [options.pod] : (await pluginPods(cluster, selector)).map((pod) => pod.name);
      let names: string[] = [];
      for (const pod of pods) {
        const logs = await cluster.kubectl.run(["logs", "-n", PLUGIN_NAMESPACE, pod, "--tail=-1"]);
        names = [...logs.matchAll(pattern)].map((match) => match[1] as string);
        if (names.length === 0) return undefined;
      }
      return pods.length > 0 && names;
    },
    options.timeoutMs ?? 120_000,
  );
}
