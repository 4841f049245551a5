import { type ContainerUpdate, Event, eventMask, type ValidateContainerAdjustmentRequest } from "@nri-ts/api";
import { ServerError, Status } from "nice-grpc-common";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { Metrics } from "./observability.js";
import { PluginError } from "./plugin-error.js";
import { PLUGIN_TEXT_LIMIT } from "@nri-ts/common";
import type { PluginHandlers } from "./testing/scripted-plugin.js";
import { container, createRequest, pod, TestRuntime } from "./testing/runtime.js";

let runtime: TestRuntime;

beforeEach(async () => {
  runtime = await TestRuntime.create({ requestTimeoutMs: 1000 });
});

afterEach(async () => {
  await runtime.close();
});

const pod0 = pod("pod0");
const ctr0 = container("ctr0", "pod0");

/** A promise that never settles: a handler that hangs. */
const forever = () => new Promise<never>(() => {});

function update(containerId: string, shares: bigint): ContainerUpdate {
  return {
    containerId,
    linux: {
      resources: {
        cpu: { shares: { value: shares }, cpus: "", mems: "" },
        hugepageLimits: [],
        unified: {},
        devices: [],
      },
    },
    ignoreFailure: false,
  };
}

async function attachAll(...plugins: Array<[index: string, name: string, handlers: PluginHandlers]>): Promise<void> {
  for (const [index, name, handlers] of plugins) await runtime.attach({ index, name, handlers });
}

describe("a plugin's error fails the request; a local failure drops the plugin", () => {
  test("an error answer fails the request at once, later plugins are not called, the plugin stays", async () => {
    await runtime.adaptation.start();
    const called: string[] = [];
    const recording = (name: string, answer: () => Promise<object>): PluginHandlers => ({
      startContainer: async () => {
        called.push(name);
        return answer();
      },
    });
    await attachAll(
      ["00", "first", recording("00-first", async () => ({}))],
      [
        "10",
        "failing",
        recording("10-failing", async () => {
          throw new Error("boom");
        }),
      ],
      ["20", "last", recording("20-last", async () => ({}))],
    );
    const failure = runtime.adaptation.startContainer({ pod: pod0, container: ctr0 });
    await expect(failure).rejects.toBeInstanceOf(PluginError);
    await expect(failure).rejects.toMatchObject({
      message: "rpc error: code = Unknown desc = boom",
      plugin: "10-failing",
      operation: "StartContainer",
      code: Status.UNKNOWN,
      details: "boom",
      fatal: false,
    });
    expect(called).toEqual(["00-first", "10-failing"]);
    expect(runtime.pluginNames).toEqual(["00-first", "10-failing", "20-last"]);
  });

  test("an error text of 3 MiB is cut to its head, marked, as any text from a plugin", async () => {
    await runtime.adaptation.start();
    const text = "e".repeat(3 * 1024 * 1024);
    await attachAll([
      "10",
      "verbose",
      {
        startContainer: async () => {
          throw new Error(text);
        },
      },
    ]);
    const head = `${"e".repeat(PLUGIN_TEXT_LIMIT)}… [${text.length - PLUGIN_TEXT_LIMIT} more bytes]`;
    await expect(runtime.adaptation.startContainer({ pod: pod0, container: ctr0 })).rejects.toMatchObject({
      message: `rpc error: code = Unknown desc = ${head}`,
      details: head,
    });
  });

  test("a status answer keeps its code in Go's text", async () => {
    await runtime.adaptation.start();
    await attachAll([
      "10",
      "picky",
      {
        createContainer: async () => {
          throw new ServerError(Status.INVALID_ARGUMENT, "no such image");
        },
      },
    ]);
    await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr1"))).rejects.toThrow(
      "rpc error: code = InvalidArgument desc = no such image",
    );
  });

  test("a plugin that does not answer in time is closed and the request goes on without it", async () => {
    await runtime.adaptation.start();
    const called: string[] = [];
    const creating = eventMask(Event.CREATE_CONTAINER);
    await runtime.attach({ index: "10", name: "slow", events: creating, handlers: { createContainer: forever } });
    await runtime.attach({
      index: "20",
      name: "fast",
      events: creating,
      handlers: {
        createContainer: async () => {
          called.push("20-fast");
          return { adjust: { annotations: { fast: "yes" } } };
        },
      },
    });
    const response = await runtime.adaptation.createContainer(createRequest("pod0", "ctr1"));
    expect(response.adjust?.annotations).toEqual({ fast: "yes" });
    expect(called).toEqual(["20-fast"]);
    expect(runtime.pluginNames).toEqual(["20-fast"]);
    expect(runtime.log.find((line) => line.level === "error")?.message).toBe(
      "closing plugin 10-slow, failed to handle CreateContainer request: context deadline exceeded",
    );
  });

  test("a DeadlineExceeded answered by the plugin itself, before the deadline, is the plugin's error", async () => {
    await runtime.adaptation.start();
    await attachAll([
      "10",
      "impatient",
      {
        startContainer: async () => {
          throw new ServerError(Status.DEADLINE_EXCEEDED, "context deadline exceeded");
        },
      },
    ]);
    await expect(runtime.adaptation.startContainer({ pod: pod0, container: ctr0 })).rejects.toMatchObject({
      message: "rpc error: code = DeadlineExceeded desc = context deadline exceeded",
      fatal: false,
    });
    expect(runtime.pluginNames).toEqual(["10-impatient"]);
  });
});

describe("merging over the wire", () => {
  test("two plugins setting the same annotation conflict, with Go's text", async () => {
    await runtime.adaptation.start();
    const setting = (value: string): PluginHandlers => ({
      createContainer: async () => ({ adjust: { annotations: { key: value } } }),
    });
    await attachAll(["10", "foo", setting("foo")], ["00", "bar", setting("bar")]);
    await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr0"))).rejects.toThrow(
      `plugins "10-foo" and "00-bar" both tried to set Annotations key`,
    );
  });

  test("each plugin sees what the plugins before it changed", async () => {
    await runtime.adaptation.start();
    await attachAll(
      ["00", "first", { createContainer: async () => ({ adjust: { env: [{ key: "FIRST", value: "1" }] } }) }],
      ["10", "second", {}],
    );
    const request = createRequest("pod0", "ctr0");
    await runtime.adaptation.createContainer(request);
    const [plugin] = [...(await Promise.resolve(runtime.adaptation.plugins))];
    expect(plugin?.fullName).toBe("00-first");
    expect(request.container?.env).toEqual(["FIRST=1"]);
  });

  test("updates of other containers are merged; updating the container being created fails", async () => {
    await runtime.adaptation.start();
    await attachAll(["10", "foo", { createContainer: async () => ({ update: [update("ctr0", 512n)] }) }]);
    const response = await runtime.adaptation.createContainer(createRequest("pod0", "ctr1"));
    expect(response.update).toMatchObject([
      { containerId: "ctr0", linux: { resources: { cpu: { shares: { value: 512n } } } } },
    ]);
    await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr0"))).rejects.toThrow(
      `plugin "10-foo" asked update of "ctr0" during creation`,
    );
  });

  test("UpdateContainer puts the requested container last, null when untouched", async () => {
    await runtime.adaptation.start();
    await attachAll(["10", "foo", { updateContainer: async () => ({ update: [update("ctr9", 128n)] }) }]);
    const response = await runtime.adaptation.updateContainer({
      pod: pod0,
      container: ctr0,
      linuxResources: undefined,
    });
    expect(response.update).toHaveLength(2);
    expect(response.update[0]?.containerId).toBe("ctr9");
    expect(response.update[1]).toBeNull();
  });

  test("StopContainer merges updates, the stopped container's included", async () => {
    await runtime.adaptation.start();
    await attachAll(["10", "foo", { stopContainer: async () => ({ update: [update("ctr0", 2n)] }) }]);
    const response = await runtime.adaptation.stopContainer({ pod: pod0, container: ctr0 });
    expect(response.update.map((entry) => entry.containerId)).toEqual(["ctr0"]);
  });
});

describe("validation", () => {
  const validators = eventMask(Event.VALIDATE_CONTAINER_ADJUSTMENT);

  test("validators see the pristine container, the merged result, the owners and every plugin", async () => {
    await runtime.adaptation.start();
    const seen: ValidateContainerAdjustmentRequest[] = [];
    await runtime.attach({
      index: "10",
      name: "adjuster",
      events: eventMask(Event.CREATE_CONTAINER),
      handlers: { createContainer: async () => ({ adjust: { annotations: { a: "b" } } }) },
    });
    await runtime.attach({ index: "05", name: "bystander", events: eventMask(Event.START_CONTAINER) });
    await runtime.attach({
      index: "90",
      name: "checker",
      events: validators,
      handlers: {
        validateContainerAdjustment: async (request) => {
          seen.push(request);
          return {};
        },
      },
    });
    const request = createRequest("pod0", "ctr0");
    const pristine = structuredClone(request.container);
    const response = await runtime.adaptation.createContainer(request);
    expect(seen).toHaveLength(1);
    const [validation] = seen;
    expect(validation?.pod).toEqual(request.pod);
    expect(validation?.container).toMatchObject({ id: "ctr0", annotations: pristine?.annotations });
    expect(validation?.adjust).toEqual(response.adjust);
    expect(validation?.owners?.owners.ctr0?.compound[1]?.owners).toEqual({ a: "10-adjuster" });
    expect(validation?.plugins).toEqual([
      { name: "bystander", index: "05" },
      { name: "adjuster", index: "10" },
      { name: "checker", index: "90" },
    ]);
  });

  test("validators run concurrently: each is called before any answers", async () => {
    await runtime.adaptation.start();
    let arrived = 0;
    let release!: () => void;
    const everyone = new Promise<void>((resolve) => (release = resolve));
    const waiting: PluginHandlers = {
      validateContainerAdjustment: async () => {
        if (++arrived === 2) release();
        await everyone;
        return {};
      },
    };
    await runtime.attach({ index: "10", name: "one", events: validators, handlers: waiting });
    await runtime.attach({ index: "20", name: "two", events: validators, handlers: waiting });
    await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr0"))).resolves.toBeDefined();
    expect(arrived).toBe(2);
  });

  test("a validator dropped while the plugins adjust is skipped in validation, as in Go v0.12.5", async () => {
    await runtime.adaptation.start();
    const plugin = await runtime.attach({ index: "10", name: "fragile", handlers: { createContainer: forever } });
    const response = await runtime.adaptation.createContainer(createRequest("pod0", "ctr0"));
    expect(response.adjust?.annotations).toEqual({});
    expect(plugin.methods).not.toContain("ValidateContainerAdjustment");
    await plugin.closed;
    expect(runtime.pluginNames).toEqual([]);
  });

  test("a rejection fails creation with Go's text; an empty reason says so", async () => {
    await runtime.adaptation.start();
    let reason = "too greedy";
    await runtime.attach({
      index: "10",
      name: "judge",
      events: validators,
      handlers: { validateContainerAdjustment: async () => ({ reject: true, reason }) },
    });
    await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr0"))).rejects.toThrow(
      `validator "10-judge" rejected container adjustment, reason: too greedy`,
    );
    reason = "";
    await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr1"))).rejects.toThrow(
      `validator "10-judge" rejected container adjustment, reason: unknown rejection reason`,
    );
  });

  test("a validator's error fails creation; it stays", async () => {
    await runtime.adaptation.start();
    await runtime.attach({
      index: "10",
      name: "judge",
      events: validators,
      handlers: {
        validateContainerAdjustment: async () => {
          throw new Error("cannot tell");
        },
      },
    });
    await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr0"))).rejects.toThrow(
      "validator plugin 10-judge failed: rpc error: code = Unknown desc = cannot tell",
    );
    expect(runtime.pluginNames).toEqual(["10-judge"]);
  });

  test("a validator that times out fails creation (fail closed) and is closed", async () => {
    await runtime.adaptation.start();
    await runtime.attach({
      index: "10",
      name: "judge",
      events: validators,
      handlers: { validateContainerAdjustment: forever },
    });
    await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr0"))).rejects.toThrow(
      "validator plugin 10-judge failed: context deadline exceeded",
    );
    expect(runtime.pluginNames).toEqual([]);
    await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr1"))).resolves.toBeDefined();
  });

  test("the default validator rejects OCI hooks when told to", async () => {
    await runtime.close();
    runtime = await TestRuntime.create({
      defaultValidator: {
        enable: true,
        rejectOCIHookAdjustment: true,
        rejectRuntimeDefaultSeccompAdjustment: false,
        rejectUnconfinedSeccompAdjustment: false,
        rejectCustomSeccompAdjustment: false,
        rejectNamespaceAdjustment: false,
        rejectSysctlAdjustment: false,
        requiredPlugins: [],
        tolerateMissingPluginsAnnotation: "",
      },
    });
    await runtime.adaptation.start();
    expect(runtime.adaptation.plugins).toMatchObject([
      { fullName: "00-default-validator", kind: "builtin", events: validators },
    ]);
    await runtime.attach({
      index: "10",
      name: "hooker",
      events: eventMask(Event.CREATE_CONTAINER),
      handlers: {
        createContainer: async (request) => ({
          adjust: request.container?.id === "ctr1" ? { hooks: { prestart: [{ path: "/bin/true" }] } } : {},
        }),
      },
    });
    await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr0"))).resolves.toBeDefined();
    await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr1"))).rejects.toThrow(
      `validator "00-default-validator" rejected container adjustment, reason: validation error: plugin "10-hooker" attempted restricted OCI hook injection`,
    );
  });

  test("the default validator requires the configured plugins", async () => {
    await runtime.close();
    runtime = await TestRuntime.create({
      defaultValidator: {
        enable: true,
        rejectOCIHookAdjustment: false,
        rejectRuntimeDefaultSeccompAdjustment: false,
        rejectUnconfinedSeccompAdjustment: false,
        rejectCustomSeccompAdjustment: false,
        rejectNamespaceAdjustment: false,
        rejectSysctlAdjustment: false,
        requiredPlugins: ["foo", "bar"],
        tolerateMissingPluginsAnnotation: "",
      },
    });
    await runtime.adaptation.start();
    await runtime.attach({ index: "00", name: "foo", events: eventMask(Event.CREATE_CONTAINER) });
    await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr0"))).rejects.toThrow(
      `validator "00-default-validator" rejected container adjustment, reason: validation error: required plugin "bar" not present`,
    );
    await runtime.attach({ index: "10", name: "bar", events: eventMask(Event.CREATE_CONTAINER) });
    await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr0"))).resolves.toBeDefined();
  });
});

describe("unsolicited updates", () => {
  test("reach the runtime's UpdateFn with the plugin's name and evictions; the failed ones go back", async () => {
    await runtime.adaptation.start();
    const plugin = await runtime.attach({ index: "10", name: "foo" });
    runtime.answerUpdates = async (updates) => updates.slice(1);
    const updates = [update("ctr0", 10n), update("ctr1", 20n)];
    const evict = [{ containerId: "ctr2", reason: "too hot" }];
    const response = await plugin.runtime.updateContainers({ update: updates, evict });
    expect(runtime.unsolicited).toEqual([{ updates, plugin: "10-foo", evictions: evict }]);
    expect(response.failed).toEqual([updates[1]]);
  });

  test("the runtime's refusal reaches the plugin as an error", async () => {
    await runtime.adaptation.start();
    const plugin = await runtime.attach({ index: "10", name: "foo" });
    runtime.answerUpdates = async () => {
      throw new Error("no updates today");
    };
    await expect(plugin.runtime.updateContainers({ update: [update("ctr0", 1n)], evict: [] })).rejects.toMatchObject({
      code: Status.UNKNOWN,
      details: "no updates today",
    });
  });

  test("need no lock: they arrive while a request waits on the same plugin", async () => {
    await runtime.adaptation.start();
    let answer!: () => void;
    const plugin = await runtime.attach({
      index: "10",
      name: "foo",
      handlers: {
        startContainer: () =>
          new Promise((resolve) => {
            answer = () => resolve({});
          }),
      },
    });
    const starting = runtime.adaptation.startContainer({ pod: pod0, container: ctr0 });
    await runtime.waitFor(() => answer !== undefined);
    await plugin.runtime.updateContainers({ update: [update("ctr0", 1n)], evict: [] });
    answer();
    await starting;
    expect(runtime.unsolicited).toHaveLength(1);
  });
});

describe("metrics", () => {
  test("are counted as Go counts them", async () => {
    const calls: string[] = [];
    const metrics: Metrics = {
      recordPluginInvocation: (plugin, operation, error) =>
        calls.push(`invocation ${plugin} ${operation} ${error?.message ?? "ok"}`),
      recordPluginLatency: (plugin, operation, ms) => calls.push(`latency ${plugin} ${operation} ${typeof ms}`),
      recordPluginAdjustments: (plugin, operation, adjust, updates, evictions) =>
        calls.push(`adjustments ${plugin} ${operation} ${adjust ? "adjust" : "-"} ${updates} ${evictions}`),
      updatePluginCount: (count) => calls.push(`count ${count}`),
    };
    await runtime.close();
    runtime = await TestRuntime.create({ metrics });
    await runtime.adaptation.start();
    calls.length = 0;
    await runtime.attach({
      index: "10",
      name: "foo",
      events: eventMask(Event.CREATE_CONTAINER, Event.UPDATE_CONTAINER, Event.UPDATE_POD_SANDBOX),
      handlers: {
        createContainer: async () => ({
          adjust: { annotations: { a: "b" } },
          update: [update("ctr9", 2n)],
          evict: [{ containerId: "ctr8", reason: "" }],
        }),
        updateContainer: async () => ({
          update: [update("ctr9", 3n)],
          evict: [
            { containerId: "ctr8", reason: "" },
            { containerId: "ctr7", reason: "" },
          ],
        }),
      },
    });
    expect(calls).toEqual([
      "latency 10-foo Synchronize number",
      "invocation 10-foo Synchronize ok",
      "adjustments 10-foo Synchronize - 0 0",
      "count 1",
      "count 1",
    ]);
    calls.length = 0;
    await runtime.adaptation.createContainer(createRequest("pod0", "ctr0"));
    await runtime.adaptation.updateContainer({ pod: pod0, container: ctr0, linuxResources: undefined });
    await runtime.adaptation.updatePodSandbox({
      pod: pod0,
      overheadLinuxResources: undefined,
      linuxResources: undefined,
    });
    await runtime.adaptation.startContainer({ pod: pod0, container: ctr0 });
    expect(calls).toEqual([
      "latency 10-foo CreateContainer number",
      "invocation 10-foo CreateContainer ok",
      "adjustments 10-foo CreateContainer adjust 1 1",
      "count 1",
      "latency 10-foo UpdateContainer number",
      "invocation 10-foo UpdateContainer ok",
      "adjustments 10-foo UpdateContainer - 1 2",
      "count 1",
      "latency 10-foo UpdatePodSandbox number",
      "invocation 10-foo UpdatePodSandbox ok",
      "count 1",
      "count 1",
    ]);
  });
});
