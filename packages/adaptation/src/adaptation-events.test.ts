import { ContainerState, Event, eventMask, eventName, type LinuxResources, type StateChangeEvent } from "@nri-ts/api";
import { Status } from "nice-grpc-common";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { Deprecation, type DeprecationRecorder } from "./observability.js";
import { PluginError } from "./plugin-error.js";
import type { PluginHandlers } from "./testing/scripted-plugin.js";
import { container, pod, TestRuntime } from "./testing/runtime.js";

let runtime: TestRuntime;

beforeEach(async () => {
  runtime = await TestRuntime.create();
});

afterEach(async () => {
  await runtime.close();
});

const pod0 = pod("pod0");
const ctr0 = container("ctr0", "pod0", {
  state: ContainerState.CONTAINER_RUNNING,
  createdAt: 1_700_000_000_123_456_789n,
  startedAt: 1_700_000_001_000_000_000n,
});
const resources: LinuxResources = {
  cpu: { shares: { value: 256n }, cpus: "0-1", mems: "", realtimeRuntime: undefined },
  hugepageLimits: [],
  unified: {},
  devices: [],
  blockioClass: undefined,
  rdtClass: undefined,
  memory: undefined,
  pids: undefined,
};

/** Every lifecycle request of one pod with one container, in order, with the event it carries. */
const lifecycle: Array<[Event, (runtime: TestRuntime) => Promise<unknown>]> = [
  [Event.RUN_POD_SANDBOX, (r) => r.adaptation.runPodSandbox({ pod: pod0 })],
  [
    Event.UPDATE_POD_SANDBOX,
    (r) => r.adaptation.updatePodSandbox({ pod: pod0, overheadLinuxResources: undefined, linuxResources: resources }),
  ],
  [Event.POST_UPDATE_POD_SANDBOX, (r) => r.adaptation.postUpdatePodSandbox({ pod: pod0 })],
  [Event.CREATE_CONTAINER, (r) => r.adaptation.createContainer({ pod: pod0, container: ctr0 })],
  [Event.POST_CREATE_CONTAINER, (r) => r.adaptation.postCreateContainer({ pod: pod0, container: ctr0 })],
  [Event.START_CONTAINER, (r) => r.adaptation.startContainer({ pod: pod0, container: ctr0 })],
  [Event.POST_START_CONTAINER, (r) => r.adaptation.postStartContainer({ pod: pod0, container: ctr0 })],
  [
    Event.UPDATE_CONTAINER,
    (r) => r.adaptation.updateContainer({ pod: pod0, container: ctr0, linuxResources: structuredClone(resources) }),
  ],
  [Event.POST_UPDATE_CONTAINER, (r) => r.adaptation.postUpdateContainer({ pod: pod0, container: ctr0 })],
  [Event.STOP_CONTAINER, (r) => r.adaptation.stopContainer({ pod: pod0, container: ctr0 })],
  [Event.REMOVE_CONTAINER, (r) => r.adaptation.removeContainer({ pod: pod0, container: ctr0 })],
  [Event.STOP_POD_SANDBOX, (r) => r.adaptation.stopPodSandbox({ pod: pod0 })],
  [Event.REMOVE_POD_SANDBOX, (r) => r.adaptation.removePodSandbox({ pod: pod0 })],
];

async function runLifecycle(): Promise<void> {
  for (const [, request] of lifecycle) await request(runtime);
}

describe("relaying events", () => {
  test("with no plugins every request succeeds", async () => {
    await runtime.adaptation.start();
    await runLifecycle();
    await expect(runtime.adaptation.createContainer({ pod: pod0, container: ctr0 })).resolves.toMatchObject({
      update: [],
      evict: [],
    });
  });

  test("a plugin subscribed to everything gets every request in order, status fields included", async () => {
    await runtime.adaptation.start();
    const plugin = await runtime.attach({ name: "all", index: "10" });
    await runLifecycle();
    expect(plugin.methods.slice(2)).toEqual([
      "RunPodSandbox",
      "UpdatePodSandbox",
      "PostUpdatePodSandbox",
      "CreateContainer",
      "ValidateContainerAdjustment",
      "PostCreateContainer",
      "StartContainer",
      "PostStartContainer",
      "UpdateContainer",
      "PostUpdateContainer",
      "StopContainer",
      "RemoveContainer",
      "StopPodSandbox",
      "RemovePodSandbox",
    ]);
    expect(plugin.requests("StartContainer")).toEqual([{ pod: pod0, container: ctr0 }]);
    expect(plugin.requests("StopPodSandbox")).toEqual([{ pod: pod0 }]);
    expect(plugin.requests("UpdatePodSandbox")).toEqual([
      { pod: pod0, overheadLinuxResources: undefined, linuxResources: resources },
    ]);
  });

  test.each(lifecycle.map(([event]) => [eventName(event), event] as const))(
    "a plugin subscribed to %s alone gets only that",
    async (name, event) => {
      await runtime.adaptation.start();
      const plugin = await runtime.attach({ name: "one", index: "10", events: eventMask(event) });
      await runLifecycle();
      expect(plugin.methods).toEqual(["Configure", "Synchronize", name]);
    },
  );

  test("UpdatePodSandbox answers an empty response whatever the plugin says", async () => {
    await runtime.adaptation.start();
    await runtime.attach({ name: "one", index: "10" });
    await expect(
      runtime.adaptation.updatePodSandbox({ pod: pod0, overheadLinuxResources: undefined, linuxResources: resources }),
    ).resolves.toEqual({});
  });
});

describe("invocation order", () => {
  function recordingPlugin(order: string[], name: string): PluginHandlers {
    return {
      startContainer: async () => {
        order.push(name);
        return {};
      },
    };
  }

  test("plugins are called by index, whatever order they connected in", async () => {
    await runtime.adaptation.start();
    const order: string[] = [];
    for (const [index, name] of [
      ["20", "foo"],
      ["99", "bar"],
      ["00", "xyzzy"],
    ] as const) {
      await runtime.attach({ name, index, handlers: recordingPlugin(order, `${index}-${name}`) });
    }
    expect(runtime.pluginNames).toEqual(["00-xyzzy", "20-foo", "99-bar"]);
    await runtime.adaptation.startContainer({ pod: pod0, container: ctr0 });
    expect(order).toEqual(["00-xyzzy", "20-foo", "99-bar"]);
  });

  test("equal indices are ordered by name, then by when the plugin connected", async () => {
    await runtime.adaptation.start();
    const order: string[] = [];
    await runtime.attach({ name: "b", index: "10", handlers: recordingPlugin(order, "10-b first") });
    await runtime.attach({ name: "a", index: "10", handlers: recordingPlugin(order, "10-a") });
    const second = runtime.connect({ name: "b", index: "10", handlers: recordingPlugin(order, "10-b second") });
    await second;
    await runtime.waitFor(() => runtime.pluginNames.length === 3);
    await runtime.adaptation.startContainer({ pod: pod0, container: ctr0 });
    expect(order).toEqual(["10-a", "10-b first", "10-b second"]);
  });
});

describe("StateChange for plugins without the dedicated RPCs", () => {
  const recorder = (): DeprecationRecorder & { warnings: string[] } => {
    const warnings: string[] = [];
    return {
      warnings,
      pluginWarning: (deprecation: Deprecation, plugin: string, details: string) => {
        warnings.push(`${Deprecation[deprecation]} ${plugin} ${details}`);
      },
    };
  };

  const oldEvents = [
    "runPodSandbox",
    "stopPodSandbox",
    "removePodSandbox",
    "postUpdatePodSandbox",
    "postCreateContainer",
    "postStartContainer",
    "postUpdateContainer",
    "removeContainer",
  ] as const;

  test("an Unimplemented answer switches the plugin to StateChange for good, each event warned once", async () => {
    await runtime.close();
    const deprecations = recorder();
    runtime = await TestRuntime.create({ deprecations });
    await runtime.adaptation.start();
    const plugin = await runtime.attach({
      name: "old",
      index: "10",
      // implements StartContainer itself, but not RunPodSandbox
      without: [...oldEvents],
      handlers: { stateChange: async () => ({}) },
    });
    await runtime.adaptation.startContainer({ pod: pod0, container: ctr0 });
    await runtime.adaptation.runPodSandbox({ pod: pod0 });
    await runtime.adaptation.startContainer({ pod: pod0, container: ctr0 });
    await runtime.adaptation.runPodSandbox({ pod: pod0 });
    await runtime.adaptation.createContainer({ pod: pod0, container: ctr0 });
    // RunPodSandbox is answered Unimplemented without reaching a handler
    expect(plugin.methods.slice(2)).toEqual([
      "StartContainer",
      "StateChange",
      "StateChange",
      "StateChange",
      "CreateContainer",
      "ValidateContainerAdjustment",
    ]);
    expect(plugin.requests<StateChangeEvent>("StateChange")).toEqual([
      { event: Event.RUN_POD_SANDBOX, pod: pod0, container: undefined },
      { event: Event.START_CONTAINER, pod: pod0, container: ctr0 },
      { event: Event.RUN_POD_SANDBOX, pod: pod0, container: undefined },
    ]);
    expect(deprecations.warnings).toEqual([
      "StateChange 10-old does not implement a dedicated RunPodSandbox RPC call",
      "StateChange 10-old does not implement a dedicated StartContainer RPC call",
    ]);
  });

  test("without a recorder the warning is logged", async () => {
    await runtime.adaptation.start();
    await runtime.attach({
      name: "old",
      index: "10",
      without: ["runPodSandbox"],
      handlers: { stateChange: async () => ({}) },
    });
    await runtime.adaptation.runPodSandbox({ pod: pod0 });
    expect(runtime.log.filter((line) => line.level === "warn").map((line) => line.message)).toEqual([
      "plugin 10-old uses deprecated StateChange instead of a dedicated RunPodSandbox RPC call",
    ]);
  });

  test("a plugin with neither fails the request with StateChange's Unimplemented", async () => {
    await runtime.adaptation.start();
    await runtime.attach({ name: "none", index: "10", without: ["runPodSandbox"] });
    const failure = runtime.adaptation.runPodSandbox({ pod: pod0 });
    await expect(failure).rejects.toBeInstanceOf(PluginError);
    await expect(failure).rejects.toMatchObject({
      message: "rpc error: code = Unimplemented desc = method StateChange",
      code: Status.UNIMPLEMENTED,
      plugin: "10-none",
      operation: "RunPodSandbox",
    });
    expect(runtime.pluginNames).toEqual(["10-none"]);
  });

  test.each(["updatePodSandbox", "createContainer", "updateContainer", "stopContainer"] as const)(
    "%s has no fallback: Unimplemented fails the request",
    async (method) => {
      await runtime.adaptation.start();
      const plugin = await runtime.attach({
        name: "old",
        index: "10",
        without: [method],
        handlers: { stateChange: async () => ({}) },
      });
      const request = lifecycle.find(([event]) => eventName(event).toLowerCase() === method.toLowerCase())![1];
      await expect(request(runtime)).rejects.toMatchObject({ code: Status.UNIMPLEMENTED });
      expect(plugin.methods).not.toContain("StateChange");
    },
  );
});
