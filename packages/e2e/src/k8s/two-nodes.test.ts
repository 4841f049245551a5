/**
 * Two nodes, each a kubelet and a containerd in network and mount
 * namespaces of their own, joined to one API server: the DaemonSets of the
 * ulimit-adjuster and the logger put one plugin pod on each node, and each
 * node's pods are adjusted, and logged, by that node's plugins only.
 * Kubernetes spreads the plugin; nothing of ours has to.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { BUSYBOX_IMAGE } from "../images.js";
import { tsLoggerEvents } from "../seen-events.js";
import { Cluster } from "./cluster.js";
import { describeK8s } from "./context.js";
import { applyKustomization, PLUGIN_NAMESPACE, pluginPods, registered } from "./plugins.js";
import { type Pod, waitPod } from "./pods.js";

describeK8s("kubernetes: two nodes", () => {
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await Cluster.start({ label: "two-nodes", nodes: 2 });
  }, 600_000);
  afterAll(() => cluster?.teardown());

  it("both nodes are Ready, each with its own address", async () => {
    const nodes = await cluster.kubectl.json<{
      items: { metadata: { name: string }; status: { addresses: { type: string; address: string }[] } }[];
    }>(["get", "nodes"]);
    expect(nodes.items.map((node) => node.metadata.name).sort()).toEqual(["node-1", "node-2"]);
    const addresses = nodes.items.map((node) => node.status.addresses.find((a) => a.type === "InternalIP")?.address);
    expect(new Set(addresses).size).toBe(2);
  });

  it("a DaemonSet puts one plugin pod on each node, and each node's pods get their own node's plugin", async () => {
    for (const plugin of ["ulimit-adjuster", "logger"]) await applyKustomization(cluster, plugin);
    const adjusters = await pluginPods(cluster, "app.kubernetes.io/name=nri-plugin-ulimit-adjuster");
    const loggers = await pluginPods(cluster, "app.kubernetes.io/name=nri-plugin-logger");
    expect(adjusters.map((pod) => pod.node).sort()).toEqual(["node-1", "node-2"]);
    expect(loggers.map((pod) => pod.node).sort()).toEqual(["node-1", "node-2"]);
    for (const pod of [...adjusters, ...loggers]) {
      const name = pod.name.includes("ulimit") ? "10-ulimit-adjuster" : "10-logger";
      await registered(cluster, "", name, { pod: pod.name });
    }

    const limits = { "node-1": 1111, "node-2": 2222 } as const;
    for (const [node, nofile] of Object.entries(limits)) {
      await cluster.kubectl.apply(workload(`on-${node}`, node, nofile));
    }
    for (const [node, nofile] of Object.entries(limits)) {
      const pod = await waitPod(cluster.kubectl, `on-${node}`, (p) => p.status?.phase === "Running");
      expect(pod.spec?.nodeName).toBe(node);
      const seen = await cluster.kubectl.run(["exec", `on-${node}`, "-c", "app", "--", "cat", "/proc/self/limits"]);
      expect(seen).toMatch(new RegExp(`^Max open files\\s+${nofile}\\s+${nofile}\\s+files\\s*$`, "m"));
    }

    // each node's logger saw the creation of its own node's container, and not the other's
    const ids = Object.fromEntries(
      await Promise.all(
        Object.keys(limits).map(async (node) => {
          const pod = await cluster.kubectl.json<Pod>(["get", "pod", `on-${node}`]);
          return [node, (pod.status?.containerStatuses?.[0]?.containerID ?? "").replace(/^containerd:\/\//, "")];
        }),
      ),
    );
    for (const logger of loggers) {
      const created = await cluster.kubectl.until(
        `the logger on ${logger.node} to log its node's container`,
        async () => {
          const events = tsLoggerEvents(
            await cluster.kubectl.run(["logs", "-n", PLUGIN_NAMESPACE, logger.name, "--tail=-1"]),
          );
          const ids = events.filter((e) => e.event === "PostStartContainer").map((e) => e.container);
          return ids.length > 0 && ids;
        },
      );
      const other = logger.node === "node-1" ? "node-2" : "node-1";
      expect(created).toContain(ids[logger.node]);
      expect(created).not.toContain(ids[other]);
    }
  });
});

function workload(name: string, node: string, nofile: number): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: "default",
      annotations: { "ulimits.noderesource.dev/container.app": `- {type: nofile, soft: ${nofile}, hard: ${nofile}}` },
    },
    spec: {
      nodeName: node,
      terminationGracePeriodSeconds: 1,
      containers: [{ name: "app", image: BUSYBOX_IMAGE, imagePullPolicy: "Never", command: ["sleep", "3600"] }],
    },
  };
}
