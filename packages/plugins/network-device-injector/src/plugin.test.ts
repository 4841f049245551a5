import { simulate } from "@nri-ts/sim";
import type { Logger } from "@nri-ts/stub";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createNetworkDeviceInjector, podNetworkNamespace } from "./plugin.js";
import { links, noNetns, type ScratchNetns, scratchNetns } from "./testing/support.js";

/** A logger that keeps `level: message` lines. */
function keptLines(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const log = (level: string) => (fields: object | string, msg?: string) =>
    lines.push(`${level}: ${typeof fields === "string" ? fields : msg}`);
  return {
    logger: { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") } as Logger,
    lines,
  };
}

describe("podNetworkNamespace", () => {
  it("is the path of the pod's first network namespace, and empty without one", () => {
    const ns = (type: string, path: string) => ({ type, path });
    const pod = (namespaces: { type: string; path: string }[]) => ({ linux: { namespaces } }) as never;
    expect(podNetworkNamespace(pod([ns("ipc", "/a"), ns("network", "/n1"), ns("network", "/n2")]))).toBe("/n1");
    expect(podNetworkNamespace(pod([ns("ipc", "/a")]))).toBe("");
    expect(podNetworkNamespace({} as never)).toBe("");
  });
});

describe("the network-device-injector under nri-sim, errors that need no namespace", () => {
  it("fails a badly annotated pod, and one on the host's network, with the Go plugin's errors, and keeps serving", async () => {
    const report = await simulate(
      `
pods:
  - {name: bad, annotations: {netdevice.noderesource.dev: "- name: [x]"}}
  - {name: badip, annotations: {netdevices.nri.containerd.io/pod: "- {name: x, address: 10.0.0.256}"}}
  - {name: hostnet, hostNetwork: true, annotations: {netdevice.noderesource.dev: "- {name: x, new_name: y}"}}
  - {name: empty, hostNetwork: true, annotations: {netdevice.noderesource.dev: ""}}
  - {name: plain}
steps: [{run-pod: bad}, {run-pod: badip}, {run-pod: hostnet}, {run-pod: empty}, {run-pod: plain}, {stop-pod: plain}]
`,
      {
        plugins: [{ plugin: createNetworkDeviceInjector(), name: "network-device-injector", index: "10" }],
        clock: "virtual",
      },
    );
    expect(report.steps.map((s) => s.ok)).toEqual([false, false, false, true, true, true]);
    expect(report.steps[0].error).toContain(
      'invalid device annotation "netdevice.noderesource.dev": error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field netdevice.name of type string',
    );
    expect(report.steps[1].error).toContain("error parsing address 10.0.0.256");
    expect(report.steps[2].error).toContain("trying to inject network device on host network Pod");
  });
});

describe.skipIf(noNetns !== undefined)(
  `the network-device-injector under nri-sim, in real namespaces${noNetns ? ` (skipped: ${noNetns})` : ""}`,
  () => {
    let host: ScratchNetns;
    let pod: ScratchNetns;

    beforeEach(async () => {
      [host, pod] = [await scratchNetns("host"), await scratchNetns("pod")];
      for (const [a, b] of [
        ["ens9", "peer9"],
        ["ens10", "peer10"],
      ])
        await host.ip("link", "add", a, "type", "veth", "peer", "name", b);
    });

    afterEach(async () => {
      await Promise.all([host.remove(), pod.remove()]);
    });

    const run = (annotation: string, logger?: Logger) =>
      simulate(
        `
runtime: {requestTimeout: 60s}  # each step is a process or two, slow on a loaded machine
pods: [{name: web, uid: ${pod.uid}, annotations: {netdevice.noderesource.dev/pod: ${JSON.stringify(annotation)}}}]
steps: [{run-pod: web}, {stop-pod: web}]
`,
        {
          plugins: [
            {
              plugin: createNetworkDeviceInjector({ host: host.ns, ...(logger && { logger }) }),
              name: "network-device-injector",
              index: "10",
            },
          ],
          clock: "virtual",
          observer: { stepDone: (step) => void (step.number === 1 && (inPod = links(pod))) },
        },
      );
    let inPod: string[] = [];

    it("moves the annotated links into the pod's namespace when it starts and back when it stops", async () => {
      const report = await run(
        "- {name: ens9, new_name: net1}\n- {name: ens10, new_name: net2, address: 10.1.0.2, prefix: 24, mtu: 9000}",
      );
      expect(report.failures).toEqual([]);
      expect(inPod).toEqual(["net1@ens9:up", "net2@ens10:up"]);
      expect(links(pod)).toEqual([]);
      expect(links(host)).toEqual(["ens10@ens10:down", "ens9@ens9:down", "peer10:down", "peer9:down"]);
    });

    it("starts the pod when a device cannot be moved, logs why, and leaves the later ones", async () => {
      const { logger, lines } = keptLines();
      const report = await run(
        "- {name: ens9, new_name: net1}\n- {name: nope0, new_name: net2}\n- {name: ens10, new_name: net3}",
        logger,
      );
      expect(report.steps.map((s) => s.ok)).toEqual([true, true]);
      expect(inPod).toEqual(["net1@ens9:up"]);
      expect(lines).toContain(
        'error: Failed to inject network device nope0, leaving the rest: Device "nope0" does not exist.',
      );
      expect(lines).toContain(
        'error: Failed to release network device net2, leaving the rest: failed to find "net2": Device "net2" does not exist.',
      );
      // the release, too, stops at the device that is not there
      expect(links(pod)).toEqual([]);
      expect(links(host)).toEqual(["ens10:down", "ens9@ens9:down", "peer10:down", "peer9:down"]);
    });

    it("puts a device without new_name back, as Go does: its new name is empty, which the kernel refuses", async () => {
      const { logger, lines } = keptLines();
      const report = await run("- {name: ens9}", logger);
      expect(report.steps.map((s) => s.ok)).toEqual([true, true]);
      expect(inPod).toEqual([]);
      expect(links(host)).toEqual(["ens10:down", "ens9@ens9:down", "peer10:down", "peer9:down"]);
      expect(lines).toContainEqual(
        expect.stringMatching(
          /^error: Failed to inject network device ens9, leaving the rest: failed to rename device "temp_\d+" to "": /,
        ),
      );
    });
  },
);
