import type { Container as ContainerMessage, ContainerAdjustment as Adjustment, DeepPartial } from "@nri-ts/api";
import {
  ContainerAdjustment,
  CreateContainerRequest,
  CreateContainerResponse,
  Field,
  IOPrioClass,
  LinuxSchedulerFlag,
  LinuxSchedulerPolicy,
  LinuxSeccomp,
  MpolFlag,
  MpolMode,
} from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { CreateContainerResult } from "./create-container-result.js";
import { mockResources } from "./testing/upstream-mock-resources.js";

/**
 * The behavioural cases of upstream adaptation_suite_test.go "Plugin
 * container creation adjustments", as sequences of plugin responses applied
 * in invocation order. Replies are compared as upstream does after Strip():
 * in canonical JSON with empty messages dropped.
 */

type Json = Record<string, unknown>;

function stripEmpty(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripEmpty);
  if (value === null || typeof value !== "object") return value;
  const out: Json = {};
  for (const [key, inner] of Object.entries(value)) {
    const stripped = stripEmpty(inner);
    if (
      typeof stripped === "object" &&
      stripped !== null &&
      !Array.isArray(stripped) &&
      Object.keys(stripped).length === 0
    )
      continue;
    out[key] = stripped;
  }
  return out;
}

function stripped(adjustment: Adjustment | undefined): unknown {
  return stripEmpty(ContainerAdjustment.toJSON(ContainerAdjustment.fromPartial(adjustment ?? {})));
}

function expectAdjustment(actual: Adjustment | undefined, expected: DeepPartial<ContainerAdjustment>): void {
  expect(stripped(actual)).toStrictEqual(stripped(ContainerAdjustment.fromPartial(expected)));
}

/** What a plugin answers: the adjustment travels over the wire, so decode(encode(x)). */
function answer(adjust: DeepPartial<ContainerAdjustment>): CreateContainerResponse {
  const response = CreateContainerResponse.fromPartial({ adjust });
  return CreateContainerResponse.decode(CreateContainerResponse.encode(response).finish());
}

const SECCOMP = LinuxSeccomp.fromPartial({
  defaultAction: "SCMP_ACT_ALLOW",
  listenerPath: "/run/meshuggah-rocks.sock",
  syscalls: [{ names: ["sched_getaffinity"], action: "SCMP_ACT_NOTIFY" }],
});

/** The adjustment upstream's mock plugin `<idx>-<name>` makes for a subject; `overwrite` adds the removal first. */
function adjustmentFor(
  subject: string,
  idx: string,
  name: string,
  container: ContainerMessage,
  overwrite: boolean,
): DeepPartial<ContainerAdjustment> {
  const plugin = `${idx}-${name}`;
  switch (subject) {
    case "annotation":
      return { annotations: { ...(overwrite ? { "-key": "" } : {}), key: plugin } };
    case "mount": {
      const mount = { source: `/dev/${plugin}`, destination: "/mnt/test" };
      return { mounts: [...(overwrite ? [{ destination: "-/mnt/test" }] : []), mount] };
    }
    case "remove mount":
      return { mounts: [{ destination: "-/remove/test/destination" }] };
    case "environment":
      return { env: [...(overwrite ? [{ key: "-key" }] : []), { key: "key", value: plugin }] };
    case "arguments":
      return overwrite
        ? { args: ["", ...container.args, "twice..."] }
        : { args: ["echo", "updated", "argument", "list"] };
    case "hooks":
      return { hooks: { prestart: [{ path: `/bin/${plugin}` }] } };
    case "device": {
      const device = { path: "/dev/test", type: "c", major: 313n, minor: 100n + BigInt(Number(idx)) };
      return { linux: { devices: [...(overwrite ? [{ path: "-/dev/test" }] : []), device] } };
    }
    case "namespace":
      return { linux: { namespaces: [{ type: "cgroup", path: "/var/run/cgroupns/replaced" }] } };
    case "rlimit":
      return { rlimits: [{ type: "nofile", hard: 456n, soft: 123n }] };
    case "CDI-device":
      return { CDIDevices: [{ name: "vendor0.com/dev=dev0" }] };
    case "I/O priority":
      return { linux: { ioPriority: { class: IOPrioClass.IOPRIO_CLASS_RT, priority: 5 } } };
    case "linux net device":
      return {
        linux: {
          netDevices: { ...(overwrite ? { "-hostIf": {} } : {}), hostIf: { name: "containerIf" } },
        },
      };
    case "linux scheduler":
      return {
        linux: {
          scheduler: {
            policy: LinuxSchedulerPolicy.SCHED_FIFO,
            priority: 10,
            flags: [LinuxSchedulerFlag.SCHED_FLAG_RESET_ON_FORK],
          },
        },
      };
    case "linux sysctl":
      return { linux: { sysctl: { "net.core.somaxconn": "256" } } };
    case "linux memory policy":
      return {
        linux: {
          memoryPolicy: { mode: MpolMode.MPOL_INTERLEAVE, nodes: "0,1", flags: [MpolFlag.MPOL_F_STATIC_NODES] },
        },
      };
    case "resources/cpu":
      return { linux: { resources: mockResources("cpu", plugin) } };
    case "resources/mem":
      return { linux: { resources: mockResources("memory", plugin) } };
    case "resources/classes":
      return { linux: { resources: mockResources("classes", plugin) } };
    case "resources/hugepagelimits":
      return { linux: { resources: mockResources("hugepagelimits", plugin) } };
    case "resources/unified":
      return { linux: { resources: mockResources("unified", plugin) } };
    case "cgroupspath":
      return { linux: { cgroupsPath: `/${plugin}` } };
    case "seccomp":
      return { linux: { seccompPolicy: SECCOMP } };
    case "rdt":
      return {
        linux: {
          rdt: {
            remove: overwrite,
            closId: { value: name },
            schemata: { value: ["L3:0=ff", "MB:0=50"] },
            enableMonitoring: { value: true },
          },
        },
      };
    default:
      throw new Error(`unknown subject ${subject}`);
  }
}

const RESOURCES = {
  cpu: {
    shares: { value: 111n },
    quota: { value: 222n },
    period: { value: 333n },
    realtimeRuntime: { value: 444n },
    realtimePeriod: { value: 555n },
  },
  memory: {
    limit: { value: 11111n },
    reservation: { value: 22222n },
    swap: { value: 33333n },
    swappiness: { value: 44444n },
    disableOomKiller: { value: false },
    useHierarchy: { value: false },
  },
};

function singlePluginRequest(): CreateContainerRequest {
  return CreateContainerRequest.fromPartial({
    pod: { id: "pod0", name: "pod0", uid: "uid0", namespace: "default" },
    container: {
      id: "ctr0",
      podSandboxId: "pod0",
      name: "ctr0",
      mounts: [{ type: "bind", source: "/remove/test", destination: "/remove/test/destination" }],
      args: ["echo", "original", "argument", "list"],
      linux: {
        resources: RESOURCES,
        namespaces: [{ type: "cgroup", path: "/var/run/cgroupns/original" }],
      },
    },
  });
}

describe("CreateContainer with a single plugin 00-test (suite #13)", () => {
  const cases: Array<[string, DeepPartial<ContainerAdjustment>]> = [
    ["annotation", { annotations: { key: "00-test" } }],
    ["mount", { mounts: [{ source: "/dev/00-test", destination: "/mnt/test" }] }],
    ["remove mount", { mounts: [{ destination: "-/remove/test/destination" }] }],
    ["environment", { env: [{ key: "key", value: "00-test" }] }],
    ["arguments", { args: ["echo", "updated", "argument", "list"] }],
    ["hooks", { hooks: { prestart: [{ path: "/bin/00-test" }] } }],
    ["device", { linux: { devices: [{ path: "/dev/test", type: "c", major: 313n, minor: 100n }] } }],
    ["namespace", { linux: { namespaces: [{ type: "cgroup", path: "/var/run/cgroupns/replaced" }] } }],
    ["rlimit", { rlimits: [{ type: "nofile", soft: 123n, hard: 456n }] }],
    ["CDI-device", { CDIDevices: [{ name: "vendor0.com/dev=dev0" }] }],
    ["I/O priority", { linux: { ioPriority: { class: IOPrioClass.IOPRIO_CLASS_RT, priority: 5 } } }],
    ["linux net device", { linux: { netDevices: { hostIf: { name: "containerIf" } } } }],
    [
      "linux scheduler",
      {
        linux: {
          scheduler: {
            policy: LinuxSchedulerPolicy.SCHED_FIFO,
            priority: 10,
            flags: [LinuxSchedulerFlag.SCHED_FLAG_RESET_ON_FORK],
          },
        },
      },
    ],
    ["linux sysctl", { linux: { sysctl: { "net.core.somaxconn": "256" } } }],
    [
      "linux memory policy",
      {
        linux: {
          memoryPolicy: { mode: MpolMode.MPOL_INTERLEAVE, nodes: "0,1", flags: [MpolFlag.MPOL_F_STATIC_NODES] },
        },
      },
    ],
    [
      "resources/cpu",
      {
        linux: {
          resources: {
            cpu: {
              shares: { value: 123n },
              quota: { value: 456n },
              period: { value: 789n },
              realtimeRuntime: { value: 321n },
              realtimePeriod: { value: 654n },
              cpus: "0-1",
              mems: "2-3",
            },
          },
        },
      },
    ],
    [
      "resources/mem",
      {
        linux: {
          resources: {
            memory: {
              limit: { value: 1234000n },
              reservation: { value: 4000n },
              swap: { value: 34000n },
              kernel: { value: 30000n },
              kernelTcp: { value: 2000n },
              swappiness: { value: 987n },
              disableOomKiller: { value: true },
              useHierarchy: { value: true },
            },
          },
        },
      },
    ],
    [
      "resources/classes",
      { linux: { resources: { rdtClass: { value: "00-test" }, blockioClass: { value: "00-test" } } } },
    ],
    [
      "resources/hugepagelimits",
      {
        linux: {
          resources: {
            hugepageLimits: [
              { pageSize: "1M", limit: 4096n },
              { pageSize: "4M", limit: 1024n },
            ],
          },
        },
      },
    ],
    ["resources/unified", { linux: { resources: { unified: { "resource.1": "value1", "resource.2": "value2" } } } }],
    ["cgroupspath", { linux: { cgroupsPath: "/00-test" } }],
    ["seccomp", { linux: { seccompPolicy: SECCOMP } }],
    [
      "rdt",
      {
        linux: {
          rdt: {
            closId: { value: "test" },
            schemata: { value: ["L3:0=ff", "MB:0=50"] },
            enableMonitoring: { value: true },
          },
        },
      },
    ],
  ];

  it.each(cases)("collects %s without conflicts", (subject, expected) => {
    const request = singlePluginRequest();
    const result = new CreateContainerResult(request);
    result.apply(answer(adjustmentFor(subject, "00", "test", result.request.container, false)), "00-test");
    const response = result.response();
    expectAdjustment(response.adjust, expected);
    expect(response.update).toStrictEqual([]);
    expect(response.evict).toStrictEqual([]);
  });
});

function twoPluginRequest(): CreateContainerRequest {
  return CreateContainerRequest.fromPartial({
    pod: { id: "pod0", name: "pod0", uid: "uid0", namespace: "default" },
    container: {
      id: "ctr0",
      podSandboxId: "pod0",
      name: "ctr0",
      args: ["echo", "original", "argument", "list"],
      linux: { resources: RESOURCES },
    },
  });
}

/** Plugins 10-foo and 00-bar both answer; invocation order is by index: 00-bar, then 10-foo (which removes first if asked). */
function runTwoPlugins(subject: string, remove: boolean): CreateContainerResult {
  const result = new CreateContainerResult(twoPluginRequest());
  result.apply(answer(adjustmentFor(subject, "00", "bar", result.request.container, false)), "00-bar");
  result.apply(answer(adjustmentFor(subject, "10", "foo", result.request.container, remove)), "10-foo");
  return result;
}

describe("CreateContainer with plugins 10-foo and 00-bar (suite #14)", () => {
  it.each([
    ["annotation", 'plugins "10-foo" and "00-bar" both tried to set Annotations key'],
    ["mount", 'plugins "10-foo" and "00-bar" both tried to set Mounts /mnt/test'],
    ["environment", 'plugins "10-foo" and "00-bar" both tried to set Env key'],
    ["arguments", 'plugins "10-foo" and "00-bar" both tried to set Args '],
    ["device", 'plugins "10-foo" and "00-bar" both tried to set Devices /dev/test'],
    ["resources/classes", 'plugins "10-foo" and "00-bar" both tried to set BlockioClass '],
    ["I/O priority", 'plugins "10-foo" and "00-bar" both tried to set IoPriority '],
    ["linux net device", 'plugins "10-foo" and "00-bar" both tried to set LinuxNetDevices hostIf'],
    ["linux scheduler", 'plugins "10-foo" and "00-bar" both tried to set LinuxSched '],
    ["rdt", 'plugins "10-foo" and "00-bar" both tried to set RdtClosID '],
  ])("fails on %s set by both", (subject, message) => {
    expect(() => runTwoPlugins(subject, false)).toThrow(message);
  });

  it.each<[string, DeepPartial<ContainerAdjustment>]>([
    ["annotation", { annotations: { "-key": "", key: "10-foo" } }],
    ["mount", { mounts: [{ source: "/dev/10-foo", destination: "/mnt/test" }] }],
    ["environment", { env: [{ key: "key", value: "10-foo" }] }],
    ["arguments", { args: ["echo", "updated", "argument", "list", "twice..."] }],
    ["device", { linux: { devices: [{ path: "/dev/test", type: "c", major: 313n, minor: 110n }] } }],
    ["linux net device", { linux: { netDevices: { "-hostIf": {}, hostIf: { name: "containerIf" } } } }],
    [
      "rdt",
      {
        linux: {
          rdt: {
            closId: { value: "foo" },
            schemata: { value: ["L3:0=ff", "MB:0=50"] },
            enableMonitoring: { value: true },
          },
        },
      },
    ],
  ])("lets 10-foo take %s over after removing it", (subject, expected) => {
    expectAdjustment(runTwoPlugins(subject, true).response().adjust, expected);
  });

  it("collects both plugins' hooks in invocation order without conflict", () => {
    const result = runTwoPlugins("hooks", false);
    expectAdjustment(result.response().adjust, {
      hooks: { prestart: [{ path: "/bin/00-bar" }, { path: "/bin/10-foo" }] },
    });
    expect(result.owners.owner("ctr0", Field.OciHooks)).toBe("00-bar,10-foo");
  });

  it("records the take-over in the owners", () => {
    const result = runTwoPlugins("mount", true);
    expect(result.owners.entryOwner("ctr0", Field.Mounts, "/mnt/test")).toBe("10-foo");
    const annotations = runTwoPlugins("annotation", true);
    expect(annotations.owners.entryOwner("ctr0", Field.Annotations, "key")).toBe("10-foo");
  });

  it("stops at the first conflict: later plugins' changes never reach a reply", () => {
    const result = new CreateContainerResult(twoPluginRequest());
    result.apply(answer({ annotations: { a: "00-bar" }, linux: { cgroupsPath: "/bar" } }), "00-bar");
    expect(() => result.apply(answer({ linux: { cgroupsPath: "/foo" } }), "10-foo")).toThrow(
      'plugins "10-foo" and "00-bar" both tried to set CgroupsPath ',
    );
  });
});

describe("the CreateContainer reply", () => {
  it("is fully populated even when no plugin answers", () => {
    const result = new CreateContainerResult(CreateContainerRequest.fromPartial({ container: { id: "ctr0" } }));
    result.apply(undefined, "00-a");
    result.apply(null, "10-b");
    expect(result.response()).toEqual({
      adjust: {
        annotations: {},
        mounts: [],
        env: [],
        hooks: {
          prestart: [],
          createRuntime: [],
          createContainer: [],
          startContainer: [],
          poststart: [],
          poststop: [],
        },
        rlimits: [],
        CDIDevices: [],
        args: [],
        linux: {
          devices: [],
          resources: { memory: {}, cpu: { cpus: "", mems: "" }, hugepageLimits: [], unified: {}, devices: [] },
          cgroupsPath: "",
          namespaces: [],
          sysctl: {},
          netDevices: {},
        },
      },
      update: [],
      evict: [],
    });
    expect(result.response().adjust?.linux?.rdt).toBeUndefined();
  });

  it("gets linux.rdt = {} once any plugin sends a linux part (quirk)", () => {
    const result = new CreateContainerResult(CreateContainerRequest.fromPartial({ container: { id: "ctr0" } }));
    result.apply(answer({ annotations: { a: "b" } }), "00-a");
    expect(result.response().adjust?.linux?.rdt).toBeUndefined();
    result.apply(answer({ linux: { cgroupsPath: "/x" } }), "10-b");
    expect(result.response().adjust?.linux?.rdt).toStrictEqual({
      closId: undefined,
      schemata: undefined,
      enableMonitoring: undefined,
      remove: false,
    });
  });

  it("ignores evictions", () => {
    const result = new CreateContainerResult(CreateContainerRequest.fromPartial({ container: { id: "ctr0" } }));
    result.apply(CreateContainerResponse.fromPartial({ evict: [{ containerId: "ctr9", reason: "because" }] }), "00-a");
    expect(result.response().evict).toStrictEqual([]);
  });
});
