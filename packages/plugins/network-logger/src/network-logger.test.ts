import { simulate } from "@nri-ts/sim";
import { createLogger } from "@nri-ts/stub";
import { connectPlugin } from "@nri-ts/stub/testing";
import { describe, expect, it } from "vitest";
import { createNetworkLogger } from "./network-logger.js";

function capture() {
  const lines: string[] = [];
  const logger = createLogger({
    format: "text",
    stream: { write: (line: string) => lines.push(line) } as never,
    now: () => new Date("2026-01-01T00:00:00Z"),
  });
  return {
    logger,
    messages: () => lines.map((line) => JSON.parse(line.replace(/^.* msg=("(?:[^"\\]|\\.)*").*\n$/, "$1")) as string),
  };
}

describe("the network-logger under nri-sim", () => {
  it("logs each pod's namespace and IPs as it starts, and its IPs as it stops and goes", async () => {
    const { logger, messages } = capture();
    const report = await simulate(
      `
pods:
  - {name: web, namespace: shop, ips: [10.244.1.22, "fd00::16"]}
  - {name: proxy, namespace: kube-system, hostNetwork: true}
  - {name: node-agent, namespace: kube-system, hostNetwork: true, ips: [192.168.1.10]}
containers: [{name: app, pod: web}]
steps:
  - run-pod: web
  - run-pod: proxy
  - run-pod: node-agent
  - create: app
  - stop-pod: web
  - remove-pod: web
`,
      { plugins: [{ plugin: createNetworkLogger({ logger }), index: "10", name: "network-logger" }], clock: "virtual" },
    );
    expect(report.failures).toEqual([]);
    // it subscribes to the pod events it logs, nothing else
    expect(report.steps.map((s) => s.events.map((e) => e.event))).toEqual([
      ["RunPodSandbox"],
      ["RunPodSandbox"],
      ["RunPodSandbox"],
      [],
      ["StopPodSandbox"],
      ["RemovePodSandbox"],
    ]);
    const netns = messages()[1].match(/namespace=(\S+)/)?.[1];
    expect(netns).toMatch(/^\/var\/run\/netns\/cni-/);
    expect(messages()).toEqual([
      "Synchronized state with the runtime (0 pods, 0 containers)...",
      `Started pod shop/web: namespace=${netns} ips=[10.244.1.22 fd00::16]`,
      "Started pod kube-system/proxy: namespace=<host-network> ips=[]",
      "Started pod kube-system/node-agent: namespace=<host-network> ips=[192.168.1.10]",
      "Stopped pod shop/web: ips=[10.244.1.22 fd00::16]",
      "Removed pod shop/web: ips=[10.244.1.22 fd00::16]",
    ]);
  });

  it("lists the pods the runtime synchronizes it with", async () => {
    const { logger, messages } = capture();
    const { stub, runtime } = await connectPlugin(createNetworkLogger({ logger }));
    try {
      await runtime.plugin.synchronize(
        {
          pods: [
            {
              namespace: "default",
              name: "a",
              ips: ["10.0.0.1"],
              linux: { namespaces: [{ type: "network", path: "/var/run/netns/a" }] },
            },
            { namespace: "default", name: "b", linux: { namespaces: [{ type: "ipc" }] } },
            { namespace: "default", name: "c" },
          ],
          containers: [{ id: "x" }],
        },
        { deadline: Date.now() + 2000 },
      );
      await runtime.plugin.shutdown({}, { deadline: Date.now() + 2000 });
    } finally {
      await stub.stop();
    }
    expect(messages()).toEqual([
      "Synchronized state with the runtime (0 pods, 0 containers)...",
      "Synchronized state with the runtime (3 pods, 1 containers)...",
      "pod default/a: namespace=/var/run/netns/a ips=[10.0.0.1]",
      "pod default/b: namespace=<host-network> ips=[]",
      "pod default/c: namespace=<host-network> ips=[]",
      "Runtime shutting down...",
    ]);
  });
});
