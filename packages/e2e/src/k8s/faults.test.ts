/**
 * Faults an operator meets, on a node running the ulimit-adjuster from its
 * kustomize files (its effect is easy to see from inside a pod):
 *
 * - the plugin's pod is deleted: the DaemonSet makes a new one, which
 *   registers, and the next pod is adjusted;
 * - the kubelet is restarted: running pods go on (same containers, no
 *   restart), and the plugin keeps serving;
 * - containerd is restarted under the kubelet: the plugin's process exits
 *   when its runtime goes away (the workloads' containers run on), the
 *   kubelet restarts its container, it registers with the new containerd,
 *   and the next pod is adjusted;
 * - a plugin hangs in CreateContainer: containerd gives up on it after
 *   its request timeout (2 s here) and pods still start; the hanging
 *   plugin, dropped, exits 1, and its pod's restart, its log and the
 *   node's containerd say why.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { recordPhase } from "../timings.js";
import { Cluster } from "./cluster.js";
import { describeK8s } from "./context.js";
import type { KubeNode } from "./node.js";
import { applyKustomization, PLUGIN_NAMESPACE, pluginPods, registered, rolledOut } from "./plugins.js";
import { eventsOf, type Pod, sleepingPod, waitPod } from "./pods.js";

const ADJUSTER = "app.kubernetes.io/name=nri-plugin-ulimit-adjuster";

describeK8s("kubernetes: faults", () => {
  let cluster: Cluster;
  let node: KubeNode;
  let pods = 0;

  /** A new pod asking for NOFILE 2048; resolves once its container's limits say so. */
  async function nextPodAdjusted(): Promise<void> {
    const name = `app-${++pods}`;
    await cluster.kubectl.apply(
      sleepingPod(name, { "ulimits.noderesource.dev/container.app": "- {type: nofile, soft: 2048, hard: 2048}" }),
    );
    await waitPod(cluster.kubectl, name, (pod) => pod.status?.phase === "Running");
    expect(await cluster.kubectl.run(["exec", name, "-c", "app", "--", "cat", "/proc/self/limits"])).toMatch(
      /^Max open files\s+2048\s+2048\s+files\s*$/m,
    );
  }

  beforeAll(async () => {
    cluster = await Cluster.start({ label: "faults" });
    node = cluster.nodes[0] as KubeNode;
    await applyKustomization(cluster, "ulimit-adjuster");
    await registered(cluster, ADJUSTER, "10-ulimit-adjuster");
    await nextPodAdjusted();
  }, 600_000);
  afterAll(() => cluster?.teardown());

  it("a deleted plugin pod is made again by its DaemonSet, registers, and adjusts the next pod", async () => {
    const [before] = await pluginPods(cluster, ADJUSTER);
    await cluster.kubectl.run(["delete", "pod", "-n", PLUGIN_NAMESPACE, before?.name ?? ""]);
    const after = await cluster.kubectl.until("a new plugin pod", async () => {
      const [pod] = await pluginPods(cluster, ADJUSTER);
      return pod && pod.uid !== before?.uid && pod;
    });
    await rolledOut(cluster, "ulimit-adjuster");
    await registered(cluster, ADJUSTER, "10-ulimit-adjuster", { pod: after.name });
    await nextPodAdjusted();
  });

  it("a restarted kubelet leaves running pods running, and the plugin keeps serving", async () => {
    const before = await containerIds(cluster);
    const [plugin] = await pluginPods(cluster, ADJUSTER);
    const start = performance.now();
    await node.restartKubelet();
    recordPhase(`${cluster.label}: kubelet restart, node Ready again`, performance.now() - start);
    expect(await containerIds(cluster)).toEqual(before);
    const [still] = await pluginPods(cluster, ADJUSTER);
    expect(still).toEqual(plugin);
    await nextPodAdjusted();
  });

  it("containerd restarted under the kubelet: the plugin's container ends and restarts, registers again, adjusts", async () => {
    const [plugin] = await pluginPods(cluster, ADJUSTER);
    const before = await containerIds(cluster);
    const start = performance.now();
    await node.restartContainerd();
    const restarted = await cluster.kubectl.until(
      "the plugin's container to restart",
      async () => {
        const [pod] = await pluginPods(cluster, ADJUSTER);
        return pod && pod.restarts > (plugin?.restarts ?? 0) && pod;
      },
      180_000,
    );
    expect(restarted.uid).toBe(plugin?.uid);
    await registered(cluster, ADJUSTER, "10-ulimit-adjuster", { pod: restarted.name });
    recordPhase(`${cluster.label}: containerd restart, plugin registered again`, performance.now() - start);
    // the runtime's restart stopped no container: the workloads run on, the plugin's process ended by itself
    // (as Go plugins do when their runtime goes away)
    const after = await containerIds(cluster);
    for (const [pod, ids] of Object.entries(before)) {
      if (!pod.startsWith(`${PLUGIN_NAMESPACE}/`)) expect(after[pod], pod).toEqual(ids);
    }
    // It ended while containerd was away, so containerd knows no exit status for it: the kubelet shows the
    // CRI's "unknown" one. (Its last log lines are lost too: containerd copies a container's output to its log.)
    const pod = await cluster.kubectl.json<Pod>(["get", "pod", "-n", PLUGIN_NAMESPACE, restarted.name]);
    const last = pod.status?.containerStatuses?.[0]?.lastState?.terminated;
    console.log(`k8s: the plugin's last state after containerd's restart: ${JSON.stringify(last)}`);
    expect(last).toMatchObject({ exitCode: 255, reason: "Unknown" });
    await nextPodAdjusted();
  });

  it("a plugin that hangs in CreateContainer is dropped after containerd's timeout; pods still start", async () => {
    await cluster.kubectl.apply(hangingPlugin());
    await rolledOut(cluster, "hang", "nri-e2e-hang");
    await registered(cluster, "app=nri-e2e-hang", "05-hang");
    const start = performance.now();
    await nextPodAdjusted();
    recordPhase(`${cluster.label}: a pod past a hanging plugin`, performance.now() - start);
    // dropped by containerd, the hanging plugin's process ends, and the kubelet restarts it
    const [hang] = await cluster.kubectl.until("the hanging plugin to be restarted", async () => {
      const found = await pluginPods(cluster, "app=nri-e2e-hang");
      return found[0] && found[0].restarts > 0 && found;
    });
    const previous = await cluster.kubectl.run(["logs", "-n", PLUGIN_NAMESPACE, hang?.name ?? "", "--previous"]);
    expect(previous).toContain("hanging in CreateContainer");
    expect(previous).toMatch(/connection to the runtime (closed|lost)/i);
    // its restart, with the exit status of a plugin whose runtime let it go, is in the pod's status and events
    const pod = await cluster.kubectl.json<Pod>(["get", "pod", "-n", PLUGIN_NAMESPACE, hang?.name ?? ""]);
    expect(pod.status?.containerStatuses?.[0]?.lastState?.terminated).toMatchObject({ exitCode: 1, reason: "Error" });
    const events = await eventsOf(cluster.kubectl, hang?.name ?? "", PLUGIN_NAMESPACE);
    console.log(
      `k8s: events of the hanging plugin's pod: ${events.map((e) => `${e.reason}: ${e.message}`).join(" / ")}`,
    );
    expect(events.map((e) => e.reason)).toEqual(expect.arrayContaining(["Started"]));
    // and the node's containerd says which plugin it dropped, and why
    expect(node.containerd.log.text()).toMatch(
      /closing plugin 05-hang, failed to handle CreateContainer request: .*deadline exceeded/,
    );
  });
});

/** Every container id of every pod, by pod (namespace/name): what a restart must keep. */
async function containerIds(cluster: Cluster): Promise<Record<string, string[]>> {
  const list = await cluster.kubectl.json<{ items: Pod[] }>(["get", "pods", "-A"]);
  return Object.fromEntries(
    list.items.map((pod) => [
      `${pod.metadata?.namespace}/${pod.metadata?.name}`,
      (pod.status?.containerStatuses ?? []).map((c) => `${c.containerID} ${c.restartCount}`),
    ]),
  );
}

/**
 * A plugin on our stub that never answers CreateContainer: the logger's
 * image (it has Node and the stub) with a script of ours as its command.
 */
function hangingPlugin(): object {
  const script = [
    "import { runPlugin } from '@nri-ts/stub';",
    "await runPlugin({",
    "  createContainer(pod) {",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal of the plugin's source, not of this file
    "    console.error(`hanging in CreateContainer for ${pod.name}`);",
    "    return new Promise(() => {});",
    "  },",
    "}, { name: 'hang', index: '05' });",
  ].join("\n");
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: "nri-e2e-hang", namespace: PLUGIN_NAMESPACE },
    spec: {
      selector: { matchLabels: { app: "nri-e2e-hang" } },
      template: {
        metadata: { labels: { app: "nri-e2e-hang" } },
        spec: {
          containers: [
            {
              name: "plugin",
              image: "localhost/nri-plugin-logger:dev",
              imagePullPolicy: "Never",
              command: ["/usr/local/bin/node", "--input-type=module", "-e", script],
              volumeMounts: [{ name: "nri-socket", mountPath: "/var/run/nri/nri.sock" }],
            },
          ],
          volumes: [{ name: "nri-socket", hostPath: { path: "/var/run/nri/nri.sock", type: "Socket" } }],
        },
      },
    },
  };
}
