import { connect } from "node:net";
import { stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ALL_EVENTS, type ConfigureRequest, Event, eventMask, type SynchronizeRequest } from "@nri-ts/api";
import { listenBacklog } from "@nri-ts/ttrpc";
import { ClientError, Status } from "nice-grpc-common";
import { afterEach, describe, expect, test } from "vitest";
import { Adaptation, AdaptationError } from "./adaptation.js";
import { ScriptedPlugin } from "./testing/scripted-plugin.js";
import { container, pod, TestRuntime } from "./testing/runtime.js";

let runtime: TestRuntime;

afterEach(async () => {
  await runtime?.close();
});

async function started(options: ConstructorParameters<typeof Adaptation>[4] = {}): Promise<TestRuntime> {
  runtime = await TestRuntime.create(options);
  await runtime.adaptation.start();
  return runtime;
}

describe("construction", () => {
  test("a missing SyncFn or UpdateFn is refused with Go's text", () => {
    const nothing = undefined as unknown as () => Promise<never>;
    expect(() => new Adaptation("r", "1", nothing, async () => [])).toThrow(
      new AdaptationError("failed to create NRI adaptation, nil SyncFn"),
    );
    expect(() => new Adaptation("r", "1", async () => {}, nothing)).toThrow(
      new AdaptationError("failed to create NRI adaptation, nil UpdateFn"),
    );
  });

  test("starts with no plugins at all, and cannot be started twice", async () => {
    await started();
    expect(runtime.pluginNames).toEqual([]);
    await expect(runtime.adaptation.start()).rejects.toThrow("NRI adaptation already started");
  });

  test("creates the socket's directory private (0700)", async () => {
    await started();
    const mode = (await stat(dirname(runtime.socketPath))).mode & 0o777;
    expect(mode & ~0o700).toBe(0);
    expect((await stat(runtime.socketPath)).isSocket()).toBe(true);
  });

  test("with external connections off there is no socket to connect to", async () => {
    await started({ externalConnections: false });
    const refused = await new Promise<NodeJS.ErrnoException>((resolve) =>
      connect(runtime.socketPath).once("error", resolve),
    );
    expect(refused.code).toBe("ENOENT");
  });

  test("a socket path whose directory cannot be created fails start with Go's text", async () => {
    runtime = await TestRuntime.create();
    const socketPath = join(runtime.pluginPath, "..", "not-a-dir", "nri.sock");
    await writeFile(dirname(socketPath), "");
    const other = new Adaptation(
      "r",
      "1",
      async () => {},
      async () => [],
      {
        socketPath,
        pluginPath: runtime.pluginPath,
      },
    );
    await expect(other.start()).rejects.toThrow(
      `failed to create socket ${JSON.stringify(socketPath)}: EEXIST: file already exists, mkdir '${dirname(socketPath)}'`,
    );
    await other.stop();
  });
});

describe("registration", () => {
  test("an external plugin registers, is configured, synchronized and taken on", async () => {
    await started();
    const plugin = await runtime.attach({ name: "foo", index: "10" });
    await expect(plugin.registered).resolves.toBeUndefined();
    expect(plugin.methods).toEqual(["Configure", "Synchronize"]);
    expect(runtime.adaptation.plugins).toEqual([
      { index: "10", name: "foo", fullName: "10-foo", kind: "external", events: ALL_EVENTS },
    ]);
  });

  test("a burst of plugins connecting at once all get in, as with Go's listen queue (Node's default holds 511)", async () => {
    const BURST = 600;
    if (listenBacklog() < BURST) {
      console.warn(`skipped: the kernel caps listen queues at ${listenBacklog()} (net.core.somaxconn)`);
      return;
    }
    await started();
    // all connect before the adaptation, in this process, can accept any
    const plugins = Array.from(
      { length: BURST },
      (_, i) => new ScriptedPlugin(connect(runtime.socketPath), { name: `p${i}`, index: "10" }),
    );
    try {
      await Promise.all(plugins.map((plugin) => plugin.registered));
      await runtime.waitFor(() => runtime.pluginNames.length === BURST);
    } finally {
      for (const plugin of plugins) plugin.close();
    }
  }, 60_000);

  test("names of letters, digits and _.+- are accepted", async () => {
    await started();
    await runtime.attach({ name: "abcd-0123+EFGH_4567.ijkl", index: "05" });
    expect(runtime.pluginNames).toEqual(["05-abcd-0123+EFGH_4567.ijkl"]);
  });

  test("a bad name is refused with Go's error, and the connection closed", async () => {
    await started();
    const plugin = await runtime.connect({ name: "foo,bar", index: "10" });
    await expect(plugin.registered).rejects.toThrow(
      new ClientError(
        "/nri.pkg.api.v1alpha1.Runtime/RegisterPlugin",
        Status.UNKNOWN,
        `invalid plugin name: invalid plugin name "foo,bar": contains invalid character ','`,
      ),
    );
    await plugin.closed;
    expect(plugin.methods).toEqual([]);
    expect(runtime.pluginNames).toEqual([]);
    await runtime.waitFor(() => runtime.log.some((line) => line.level === "error"));
    expect(runtime.log.find((line) => line.level === "error")?.message).toBe(
      `failed to start external plugin: failed to register plugin: plugin registered with an invalid name: invalid plugin name "foo,bar": contains invalid character ','`,
    );
  });

  test("a bad index is refused with Go's error", async () => {
    await started();
    const plugin = await runtime.connect({ name: "foo", index: "1" });
    await expect(plugin.registered).rejects.toMatchObject({
      code: Status.UNKNOWN,
      details: `invalid plugin index: invalid plugin index "1", must be 2 digits`,
    });
    await plugin.closed;
    await runtime.waitFor(() => runtime.log.some((line) => line.level === "error"));
    expect(runtime.log.find((line) => line.level === "error")?.message).toBe(
      `failed to start external plugin: failed to register plugin: plugin "foo" registered with an invalid index: invalid plugin index "1", must be 2 digits`,
    );
  });

  test("a plugin that does not register in time is dropped; the next one gets in", async () => {
    await started({ registrationTimeoutMs: 500 });
    const silent = await runtime.connect({ name: "silent", index: "10", register: false });
    await silent.closed;
    expect(runtime.log.find((line) => line.level === "error")?.message).toBe(
      "failed to start external plugin: plugin registration timed out",
    );
    runtime.adaptation.registrationTimeoutMs = 60_000; // the next one need not be quick to get in
    await runtime.attach({ name: "next", index: "20" });
    expect(runtime.pluginNames).toEqual(["20-next"]);
  });

  test("stop() does not wait for a plugin that is still registering", async () => {
    await started({ registrationTimeoutMs: 60_000 });
    const silent = await runtime.connect({ name: "silent", index: "10", register: false });
    await runtime.waitFor(() => runtime.log.some((line) => line.message === "runtime interface starting up"));
    await runtime.adaptation.stop();
    await silent.closed;
    expect(runtime.pluginNames).toEqual([]);
  });

  test("a second RegisterPlugin is refused and renames nothing", async () => {
    await started();
    const plugin = await runtime.attach({ name: "foo", index: "10" });
    await expect(
      plugin.runtime.registerPlugin({ pluginName: "bar", pluginIdx: "20", NRIVersion: "" }),
    ).rejects.toMatchObject({ code: Status.UNKNOWN, details: "plugin 10-foo is already registered" });
    expect(runtime.pluginNames).toEqual(["10-foo"]);
  });
});

describe("configuration", () => {
  test("the plugin is told the runtime, the timeouts (ms) and the NRI version", async () => {
    await started({ nriVersion: "v9.8.7" });
    const plugin = await runtime.attach({ name: "foo", index: "10" });
    expect(plugin.requests<ConfigureRequest>("Configure")).toEqual([
      {
        config: "",
        runtimeName: "test-runtime",
        runtimeVersion: "0.0.1",
        registrationTimeout: 5000n,
        requestTimeout: 2000n,
        NRIVersion: "v9.8.7",
      },
    ]);
  });

  test("changed timeouts apply to this adaptation's later plugins only", async () => {
    await started();
    const other = await TestRuntime.create();
    try {
      runtime.adaptation.registrationTimeoutMs += 5;
      runtime.adaptation.requestTimeoutMs += 7;
      const plugin = await runtime.attach({ name: "foo", index: "10" });
      expect(plugin.requests<ConfigureRequest>("Configure")[0]).toMatchObject({
        registrationTimeout: 5005n,
        requestTimeout: 2007n,
      });
      expect(other.adaptation.requestTimeoutMs).toBe(2000);
    } finally {
      await other.close();
    }
  });

  test("events 0 subscribes to everything, validation included", async () => {
    await started();
    await runtime.attach({ name: "foo", index: "10", events: 0 });
    expect(runtime.adaptation.plugins[0]!.events).toBe(0x3fff);
  });

  test("a mask is kept as given", async () => {
    await started();
    const events = eventMask(Event.CREATE_CONTAINER, Event.STOP_CONTAINER);
    await runtime.attach({ name: "foo", index: "10", events });
    expect(runtime.adaptation.plugins[0]!.events).toBe(events);
  });

  test.each([
    [0x4000, "invalid plugin events: 0x4000"],
    [0x8003, "invalid plugin events: 0x8000"],
    [-1, "invalid plugin events: 0x-4000"],
  ])("mask %i is refused: %s", async (events, text) => {
    await started();
    const plugin = await runtime.connect({ name: "foo", index: "10", events });
    await plugin.closed;
    expect(runtime.log.find((line) => line.level === "error")?.message).toBe(
      `failed to start external plugin: ${text}`,
    );
    expect(plugin.methods).toEqual(["Configure"]);
  });

  test("a plugin failing Configure is dropped with the error, which names it (it registered)", async () => {
    await started();
    const plugin = await runtime.connect({
      name: "foo",
      index: "10",
      handlers: {
        configure: async () => {
          throw new Error("no config for you");
        },
      },
    });
    await plugin.closed;
    expect(runtime.log.find((line) => line.level === "error")).toMatchObject({
      message:
        "failed to start external plugin: failed to configure plugin: rpc error: code = Unknown desc = no config for you",
      fields: { plugin: "10-foo" },
    });
  });
});

describe("synchronization of external plugins", () => {
  test("the plugin gets every pod and container, status included, and its updates reach the runtime", async () => {
    runtime = await TestRuntime.create();
    runtime.pods = [pod("pod0"), pod("pod1")];
    runtime.containers = [
      container("ctr0", "pod0", {
        state: 3,
        createdAt: 1_700_000_000_000_000_000n,
        startedAt: 1_700_000_001_000_000_000n,
        finishedAt: 1_700_000_002_000_000_000n,
        exitCode: 127,
        statusReason: "Error",
        statusMessage: "exec: not found",
      }),
    ];
    await runtime.adaptation.start();
    const update = { containerId: "ctr0", linux: { resources: { cpu: { shares: { value: 512n } } } } };
    const plugin = await runtime.attach({
      name: "foo",
      index: "10",
      handlers: { synchronize: async () => ({ update: [update], more: false }) },
    });
    expect(plugin.requests<SynchronizeRequest>("Synchronize")).toEqual([
      { pods: runtime.pods, containers: runtime.containers, more: false },
    ]);
    expect(runtime.syncUpdates.at(-1)).toMatchObject([update]);
  });

  test("a state too large for one message goes in pages", async () => {
    // one request timeout covers the whole paged exchange (6 MB): seconds on a busy machine
    runtime = await TestRuntime.create({ requestTimeoutMs: 60_000 });
    const big = "x".repeat(20_000);
    runtime.pods = [pod("pod0")];
    runtime.containers = Array.from({ length: 300 }, (_, i) => container(`ctr${i}`, "pod0", { annotations: { big } }));
    await runtime.adaptation.start();
    const plugin = await runtime.attach({ name: "foo", index: "10" });
    const pages = plugin.requests<SynchronizeRequest>("Synchronize");
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.map((page) => page.more)).toEqual(pages.map((_, index) => index < pages.length - 1));
    expect(pages.flatMap((page) => page.pods)).toEqual(runtime.pods);
    expect(pages.flatMap((page) => page.containers.map((c) => c.id))).toEqual(runtime.containers.map((c) => c.id));
  });

  test("a plugin that cannot take pages is dropped", async () => {
    runtime = await TestRuntime.create({ requestTimeoutMs: 60_000 });
    const big = "x".repeat(20_000);
    runtime.containers = Array.from({ length: 300 }, (_, i) => container(`ctr${i}`, "pod0", { annotations: { big } }));
    await runtime.adaptation.start();
    const plugin = await runtime.connect({
      name: "old",
      index: "10",
      handlers: { synchronize: async () => ({ update: [], more: false }) },
    });
    await plugin.closed;
    expect(runtime.log.find((line) => line.level === "error")?.message).toBe(
      "failed to synchronize plugin: plugin does not handle split sync requests",
    );
  });

  test("a plugin whose synchronization the runtime refuses is disconnected", async () => {
    await started();
    runtime.failSync = true;
    const plugin = await runtime.connect({ name: "foo", index: "10" });
    await plugin.closed;
    expect(plugin.methods).toEqual(["Configure", "Synchronize"]);
    expect(runtime.pluginNames).toEqual([]);
    expect(runtime.log.find((line) => line.level === "error")?.message).toBe(
      "failed to synchronize plugin: synchronization refused by the test runtime",
    );
  });

  test("a plugin failing Synchronize is dropped", async () => {
    await started();
    const plugin = await runtime.connect({
      name: "foo",
      index: "10",
      handlers: {
        synchronize: async () => {
          throw new Error("cannot sync");
        },
      },
    });
    await plugin.closed;
    expect(runtime.pluginNames).toEqual([]);
  });

  test("while the runtime blocks plugin sync, a new plugin waits before synchronizing", async () => {
    await started();
    const block = await runtime.adaptation.blockPluginSync();
    const plugin = await runtime.connect({ name: "foo", index: "10" });
    await runtime.waitFor(() => plugin.methods.includes("Configure"));
    // the runtime's own work goes on meanwhile
    await runtime.adaptation.runPodSandbox({ pod: pod("pod0") });
    expect(plugin.methods).toEqual(["Configure"]);
    block.unblock();
    block.unblock();
    await runtime.waitFor(() => runtime.pluginNames.length === 1);
    expect(plugin.methods).toEqual(["Configure", "Synchronize"]);
  });
});
