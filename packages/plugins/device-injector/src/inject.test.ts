import {
  IOPrioClass,
  LinuxContainerAdjustment,
  LinuxSchedulerFlag,
  LinuxSchedulerPolicy,
  MpolFlag,
  MpolMode,
} from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { deviceAdjustment } from "./inject.js";

const pod = (annotations: Record<string, string>) => ({ name: "pod0", annotations });
const adjust = (annotations: Record<string, string>, container = "c0") =>
  deviceAdjustment(pod(annotations), { name: container });

describe("deviceAdjustment", () => {
  it("gives an empty adjustment when nothing is annotated", () => {
    expect(adjust({ other: "x" })).toEqual(adjust({}));
    expect(adjust({}).linux).toBeUndefined();
  });

  it("injects devices, leaving file mode, uid and gid unset when 0", () => {
    const devices = adjust({
      "devices.noderesource.dev/container.c0":
        "- {path: /dev/nri-null, type: c, major: 1, minor: 3}\n- {path: /dev/x, type: b, major: 8, minor: 0, file_mode: 0600, uid: 1000, gid: 0}",
    }).linux?.devices;
    expect(devices?.[0]).toMatchObject({
      path: "/dev/nri-null",
      type: "c",
      major: 1n,
      minor: 3n,
      fileMode: undefined,
      uid: undefined,
      gid: undefined,
    });
    expect(devices?.[1]).toMatchObject({
      path: "/dev/x",
      type: "b",
      major: 8n,
      minor: 0n,
      fileMode: { value: 0o600 },
      uid: { value: 1000 },
      gid: undefined,
    });
  });

  it("injects CDI devices and mounts in order", () => {
    const a = adjust({
      "cdi-devices.noderesource.dev/container.c0": "- vendor0.com/device=dev0\n- vendor1.com/device=dev1",
      "mounts.noderesource.dev/pod": "- {source: /home, destination: /host-home, type: bind, options: [bind, ro]}",
    });
    expect(a.CDIDevices.map((d) => d.name)).toEqual(["vendor0.com/device=dev0", "vendor1.com/device=dev1"]);
    expect(a.mounts).toMatchObject([
      { source: "/home", destination: "/host-home", type: "bind", options: ["bind", "ro"] },
    ]);
  });

  it("sets the I/O priority, and none for an unknown class (the Go plugin only warns)", () => {
    expect(
      adjust({ "io-priority.noderesource.dev/container.c0": "class: IOPRIO_CLASS_RT\npriority: 2" }).linux?.ioPriority,
    ).toEqual({
      class: IOPrioClass.IOPRIO_CLASS_RT,
      priority: 2,
    });
    const warnings: string[] = [];
    const log = { info: () => {}, warn: (m: unknown) => void warnings.push(String(m)), error: () => {} };
    // nothing set, but an empty Linux part, as the Go plugin sends it
    expect(deviceAdjustment(pod({ "io-priority.nri.io": "class: FAST" }), { name: "c0" }, log).linux).toEqual(
      LinuxContainerAdjustment.fromPartial({}),
    );
    expect(warnings).toEqual(['unknown I/O priority class "FAST", using IOPRIO_CLASS_BE']);
  });

  it("sets scheduling attributes; unknown names become the zero values, as in Go", () => {
    expect(
      adjust({
        "scheduling-policy.noderesource.dev/container.c0":
          "policy: SCHED_DEADLINE\nruntime: 1e6\ndeadline: 2000000\nperiod: 0x1E8480\nflags: [SCHED_FLAG_RECLAIM, BOGUS]",
      }).linux?.scheduler,
    ).toEqual({
      policy: LinuxSchedulerPolicy.SCHED_DEADLINE,
      nice: 0,
      priority: 0,
      flags: [LinuxSchedulerFlag.SCHED_FLAG_RECLAIM, LinuxSchedulerFlag.SCHED_FLAG_RESET_ON_FORK],
      runtime: 1_000_000n,
      deadline: 2_000_000n,
      period: 2_000_000n,
    });
    expect(adjust({ "scheduling-policy.noderesource.dev": "" }).linux?.scheduler?.policy).toBe(
      LinuxSchedulerPolicy.SCHED_NONE,
    );
  });

  it("injects network devices by host interface and sets sysctls, numbers taken as text", () => {
    const linux = adjust({
      "network-devices.noderesource.dev/container.c0":
        "- {hostIf: ens2.100, name: netdev0}\n- {hostIf: ens3, name: netdev1}",
      "sysctl.noderesource.dev/pod": "net.core.somaxconn: 256\nnet.ipv4.ip_forward: yes",
    }).linux;
    expect(linux?.netDevices).toEqual({ "ens2.100": { name: "netdev0" }, ens3: { name: "netdev1" } });
    expect(linux?.sysctl).toEqual({ "net.core.somaxconn": "256", "net.ipv4.ip_forward": "true" });
  });

  it("has no legacy key for sysctls", () => {
    expect(adjust({ "sysctl.nri.io": "a: b" }).linux).toBeUndefined();
  });

  it("sets the memory policy, and refuses unknown modes and flags with Go's texts", () => {
    expect(
      adjust({
        "memory-policy.noderesource.dev/pod": 'mode: MPOL_INTERLEAVE\nnodes: "2,3"\nflags: [MPOL_F_STATIC_NODES]',
      }).linux?.memoryPolicy,
    ).toEqual({
      mode: MpolMode.MPOL_INTERLEAVE,
      nodes: "2,3",
      flags: [MpolFlag.MPOL_F_STATIC_NODES],
    });
    expect(() => adjust({ "memory-policy.noderesource.dev": "mode: MPOL_FAST" })).toThrow(
      'invalid memory policy: invalid memory policy mode "MPOL_FAST"',
    );
    expect(() => adjust({ "memory-policy.noderesource.dev": "mode: MPOL_BIND\nflags: [X]" })).toThrow(
      'invalid memory policy: invalid memory policy flag "X"',
    );
    expect(() => adjust({ "memory-policy.noderesource.dev": "" })).toThrow(
      'invalid memory policy: invalid memory policy mode ""',
    );
  });

  it("stops at the first bad annotation, in the Go plugin's order", () => {
    expect(() => adjust({ "mounts.noderesource.dev": "x: [", "devices.noderesource.dev": "- path: [a]" })).toThrow(
      /^invalid device annotation /,
    );
    expect(() => adjust({ "network-devices.noderesource.dev": "- ~" })).toThrow(
      'invalid net device annotation "- ~": entry 1 is null',
    );
  });
});
