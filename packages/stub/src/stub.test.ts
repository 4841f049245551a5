import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Event, eventMask, NRI_VERSION, RegisterPluginRequest } from "@nri-ts/api";
import { Mux, socketPair } from "@nri-ts/mux";
import { FrameDecoder, Request } from "@nri-ts/ttrpc";
import { Status } from "nice-grpc-common";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StubError } from "./errors.js";
import { createLogger, type Logger, silentLogger } from "./logger.js";
import type { ConfigureInput, Plugin } from "./plugin.js";
import { Stub, type StubOptions } from "./stub.js";
import { connectPlugin } from "./harness/connect-plugin.js";
import { ScriptedRuntime, ScriptedRuntimeListener, type ScriptedRuntimeOptions } from "./harness/scripted-runtime.js";

const plugin: Plugin = { createContainer: () => {}, stopContainer: () => {} };
const base: StubOptions = { index: "10", name: "test", logger: silentLogger, env: {} };

const stubs: Stub[] = [];
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((stub) => stub.stop()));
});

function track(stub: Stub): Stub {
  stubs.push(stub);
  return stub;
}

/** A stub connected to a scripted runtime, starting (not yet configured). */
async function starting(p: Plugin, options: StubOptions = {}, runtimeOptions?: ScriptedRuntimeOptions) {
  const { runtime, connection } = await ScriptedRuntime.pair(runtimeOptions);
  const stub = track(new Stub(p, { ...base, ...options, connection }));
  const started = stub.start();
  started.catch(() => {});
  return { stub, runtime, started };
}

/** A logger that keeps its lines' messages and levels. */
function recordingLogger(): { logger: Logger; lines: Array<{ level: string; msg: string }> } {
  const lines: Array<{ level: string; msg: string }> = [];
  const logger = createLogger({
    level: "debug",
    stream: {
      write: (chunk: string) => {
        lines.push(JSON.parse(chunk));
        return true;
      },
    } as never,
  });
  return { logger, lines };
}

describe("creating a stub", () => {
  it("refuses a plugin without lifecycle handlers", () => {
    expect(() => new Stub({ configure: () => {} }, base)).toThrow(
      expect.objectContaining({ code: "ERR_STUB_NO_HANDLERS" }),
    );
  });

  it("warns about each key that is no handler, naming the nearest handler, and runs with the others", async () => {
    const { logger, lines } = recordingLogger();
    // a plugin written in JavaScript, or typed loosely: TypeScript would not take these keys
    const misspelled = { createContainer: () => {}, stopContainr: () => {}, PostStartContainer: () => {}, timeout: 5 };
    const stub = new Stub(misspelled as Plugin, { ...base, logger });
    expect(stub.handledEvents).toBe(eventMask(Event.CREATE_CONTAINER));
    expect(lines.filter((line) => line.level === "warn").map((line) => line.msg)).toEqual([
      `the plugin's key "stopContainr" (did you mean stopContainer?) is no handler, and is ignored`,
      `the plugin's key "PostStartContainer" (did you mean postStartContainer?) is no handler, and is ignored`,
      `the plugin's key "timeout" (did you mean shutdown?) is no handler, and is ignored`,
    ]);
    expect(lines.filter((line) => line.level === "warn")[0]).toMatchObject({
      key: "stopContainr",
      nearest: "stopContainer",
    });
  });

  it("names the keys that are no handlers when there is no handler at all", () => {
    expect(() => new Stub({ stopContainr: () => {} } as Plugin, base)).toThrow(
      new StubError(
        "ERR_STUB_NO_HANDLERS",
        "plugin does not implement any NRI request handlers (it needs at least one lifecycle event handler); " +
          `its key "stopContainr" (did you mean stopContainer?) is no handler`,
      ),
    );
  });

  it("refuses a bad identity before connecting", () => {
    expect(() => new Stub(plugin, { ...base, index: "100" })).toThrow(
      expect.objectContaining({ code: "ERR_STUB_IDENTITY" }),
    );
  });

  it("refuses an NRI_PLUGIN_SOCKET that is not a number", () => {
    expect(() => new Stub(plugin, { ...base, env: { NRI_PLUGIN_SOCKET: "three" } })).toThrow(
      new StubError(
        "ERR_STUB_INVALID_SOCKET_ENV",
        'invalid socket in environment (NRI_PLUGIN_SOCKET="three"): not a file descriptor number',
      ),
    );
  });

  it("is known as index-name and subscribes to its handled events until configured", () => {
    const stub = new Stub(plugin, base);
    expect(stub.name).toBe("10-test");
    expect(stub.events).toBe(eventMask(Event.CREATE_CONTAINER, Event.STOP_CONTAINER));
    expect(stub.registrationTimeoutMs).toBe(5000);
    expect(stub.requestTimeoutMs).toBe(2000);
    expect(stub.runtime).toBeUndefined();
    expect(stub.connected).toBe(false);
  });
});

describe("registration", () => {
  it("sends RegisterPlugin on mux connection 2 as the Go stub does", async () => {
    const { local, peer } = await socketPair();
    const stub = track(new Stub(plugin, { ...base, connection: peer }));
    void stub.start().catch(() => {});
    // the runtime's view: mux connection 2, a ttrpc request frame on stream 1, the request
    const mux = new Mux(local);
    const conn2 = mux.open(2);
    const requests: Request[] = [];
    const decoder = new FrameDecoder({
      frame: (streamId, type, _flags, data) => {
        expect([streamId, type]).toEqual([1, 1]);
        requests.push(Request.decode(data));
      },
      oversized: () => {},
    });
    conn2.on("data", (chunk: Buffer) => decoder.push(chunk));
    await expect.poll(() => requests.length).toBe(1);
    const [request] = requests;
    expect(request.service).toBe("nri.pkg.api.v1alpha1.Runtime");
    expect(request.method).toBe("RegisterPlugin");
    expect(Number(request.timeoutNano / 1_000_000n)).toBeGreaterThan(4000);
    expect(Buffer.from(request.payload)).toEqual(
      Buffer.from(
        RegisterPluginRequest.encode({ pluginName: "test", pluginIdx: "10", NRIVersion: NRI_VERSION }).finish(),
      ),
    );
    mux.close();
  });

  it("is started once configured, and reports the subscription", async () => {
    const { stub, runtime, started } = await starting(plugin);
    expect(await runtime.registered()).toEqual({ pluginName: "test", pluginIdx: "10", NRIVersion: NRI_VERSION });
    expect(await runtime.configure()).toEqual({ events: 0x208 });
    await started;
    expect(stub.connected).toBe(true);
  });

  it("serves Configure before its RegisterPlugin is answered", async () => {
    let configured: unknown;
    const { started } = await starting(
      plugin,
      {},
      {
        onRegister: async (_request, runtime) => {
          configured = await runtime.configure();
        },
      },
    );
    await started;
    expect(configured).toEqual({ events: 0x208 });
  });

  it("fails to start when the runtime refuses the registration", async () => {
    const { started } = await starting(
      plugin,
      {},
      {
        onRegister: () => {
          throw new Error('invalid plugin name: invalid plugin name "x y"');
        },
      },
    );
    await expect(started).rejects.toThrow(
      new StubError(
        "ERR_STUB_REGISTER",
        'failed to register with NRI/Runtime: invalid plugin name: invalid plugin name "x y"',
      ),
    );
  });

  it("fails to start, instead of waiting forever, when Configure does not come", async () => {
    const { runtime, started } = await starting(plugin, { configureTimeoutMs: 10 });
    await expect(started).rejects.toMatchObject({ code: "ERR_STUB_CONFIGURE_TIMEOUT" });
    await runtime.closed;
  });

  it("fails to start when the runtime goes away meanwhile", async () => {
    const { runtime, started } = await starting(plugin);
    await runtime.registered();
    runtime.close();
    await expect(started).rejects.toMatchObject({ code: "ERR_STUB_CONNECTION_LOST" });
  });

  it("refuses to start twice", async () => {
    const { stub, runtime, started } = await starting(plugin);
    await runtime.handshake();
    await started;
    await expect(stub.start()).rejects.toMatchObject({ code: "ERR_STUB_ALREADY_STARTED" });
  });

  it("fails start with ERR_STUB_STOPPED when stopped while starting", async () => {
    const { stub, runtime, started } = await starting(plugin);
    await runtime.registered();
    await stub.stop();
    await expect(started).rejects.toMatchObject({ code: "ERR_STUB_STOPPED" });
  });
});

describe("configuration", () => {
  it("hands configure the config, the runtime and its timeouts, and adopts the timeouts", async () => {
    let input: ConfigureInput | undefined;
    const { stub, runtime, started } = await starting({ ...plugin, configure: (i) => void (input = i) });
    await runtime.registered();
    await runtime.configure({
      config: "level: debug\n",
      runtimeName: "containerd",
      runtimeVersion: "v2.1.3",
      NRIVersion: "v0.12.2",
      registrationTimeout: 7000n,
      requestTimeout: 3000n,
    });
    await started;
    expect(input).toEqual({
      config: "level: debug\n",
      runtimeName: "containerd",
      runtimeVersion: "v2.1.3",
      runtimeNriVersion: "v0.12.2",
      registrationTimeoutMs: 7000,
      requestTimeoutMs: 3000,
    });
    expect([stub.registrationTimeoutMs, stub.requestTimeoutMs]).toEqual([7000, 3000]);
    expect(stub.runtime).toEqual({ name: "containerd", version: "v2.1.3", nriVersion: "v0.12.2" });
  });

  it("infers the runtime's NRI version when it does not say, as Go's stub does", async () => {
    const { stub, runtime, started } = await starting(plugin);
    await runtime.registered();
    await runtime.configure({ runtimeName: "containerd", runtimeVersion: "v2.1.3", NRIVersion: "" });
    await started;
    expect(stub.runtime?.nriVersion).toBe("v0.8.0");
  });

  it("records an unknown NRI version when it cannot be inferred", async () => {
    const { stub, runtime, started } = await starting(plugin);
    await runtime.registered();
    await runtime.configure({ runtimeName: "someruntime", runtimeVersion: "1.0", NRIVersion: "(devel)" });
    await started;
    expect(stub.runtime?.nriVersion).toBe("unknown");
  });

  it.each([
    ["v0.12.3", true],
    ["v0.12.4", false],
    ["(devel)", false],
  ])("with a failure policy, warns when the runtime's NRI (%s) predates policies: %s", async (nriVersion, warns) => {
    const { logger, lines } = recordingLogger();
    const { runtime, started } = await starting(plugin, { logger, failurePolicy: { failRequest: true } });
    await runtime.registered();
    await runtime.configure({ runtimeName: "someruntime", runtimeVersion: "1.0", NRIVersion: nriVersion });
    await started;
    const warning = `the runtime's NRI ${nriVersion} predates failure policies (v0.12.4): it ignores this plugin's`;
    expect(lines.some((line) => line.level === "warn" && line.msg === warning)).toBe(warns);
  });

  it("subscribes to the narrower mask configure returns", async () => {
    const { stub, runtime, started } = await starting({ ...plugin, configure: () => eventMask(Event.STOP_CONTAINER) });
    await runtime.registered();
    expect(await runtime.configure()).toEqual({ events: 0x200 });
    await started;
    expect(stub.events).toBe(0x200);
  });

  it("fails Configure and start when configure asks for unhandled events", async () => {
    const { runtime, started } = await starting({ ...plugin, configure: () => eventMask(Event.RUN_POD_SANDBOX) });
    await runtime.registered();
    await expect(runtime.configure()).rejects.toMatchObject({
      code: Status.UNKNOWN,
      details: "internal error: unhandled events RunPodSandbox (0x1)",
    });
    await expect(started).rejects.toThrow(
      new StubError(
        "ERR_STUB_CONFIGURE",
        "plugin configuration failed: internal error: unhandled events RunPodSandbox (0x1)",
      ),
    );
    await runtime.closed;
  });

  it("fails Configure and start when configure throws", async () => {
    const { runtime, started } = await starting({
      ...plugin,
      configure: () => {
        throw new Error("bad config: no such key");
      },
    });
    await runtime.registered();
    await expect(runtime.configure()).rejects.toMatchObject({
      code: Status.UNKNOWN,
      details: "bad config: no such key",
    });
    await expect(started).rejects.toMatchObject({ code: "ERR_STUB_CONFIGURE" });
  });
});

describe("unsolicited updates", () => {
  it("sends updates and evictions and resolves with the failed updates", async () => {
    const { stub, runtime } = await connectPlugin(plugin, {
      runtime: { onUpdateContainers: (request) => request.update.filter((u) => u.containerId === "c2") },
    });
    track(stub);
    const failed = await stub.updateContainers(
      [{ containerId: "c1" }, { containerId: "c2", ignoreFailure: true }],
      [{ containerId: "c3", reason: "memory pressure" }],
    );
    expect(failed.map((u) => u.containerId)).toEqual(["c2"]);
    expect(runtime.updateRequests).toEqual([
      {
        update: [
          { containerId: "c1", ignoreFailure: false, linux: undefined },
          { containerId: "c2", ignoreFailure: true, linux: undefined },
        ],
        evict: [{ containerId: "c3", reason: "memory pressure" }],
      },
    ]);
  });

  it("refuses when not connected", async () => {
    await expect(new Stub(plugin, base).updateContainers([])).rejects.toMatchObject({ code: "ERR_STUB_NOT_CONNECTED" });
  });

  it("can be used from a handler while the runtime waits for it", async () => {
    const { stub, runtime } = await connectPlugin({
      startContainer: async (_pod, container, ctx) => {
        await ctx.stub.updateContainers([{ containerId: container.id }]);
      },
    });
    track(stub);
    await runtime.plugin.startContainer({ container: { id: "c7" } });
    expect(runtime.updateRequests.map((r) => r.update[0].containerId)).toEqual(["c7"]);
  });
});

describe("running", () => {
  it("run() resolves after stop(); the runtime sees the connection close and onClose is not called", async () => {
    let closes = 0;
    const { stub, runtime } = await ScriptedRuntime.pair().then(({ runtime, connection }) => ({
      runtime,
      stub: track(new Stub(plugin, { ...base, connection, onClose: () => void closes++ })),
    }));
    const running = stub.run();
    await runtime.handshake();
    await stub.stop();
    await expect(running).resolves.toBeUndefined();
    await runtime.closed;
    expect(closes).toBe(0);
    expect(stub.connected).toBe(false);
  });

  it("when the runtime goes away, calls onClose and run() rejects with ERR_STUB_CONNECTION_LOST", async () => {
    const reasons: StubError[] = [];
    const { runtime, connection } = await ScriptedRuntime.pair();
    const stub = track(new Stub(plugin, { ...base, connection, onClose: (reason) => void reasons.push(reason) }));
    const running = stub.run();
    await runtime.handshake();
    runtime.close();
    await expect(running).rejects.toMatchObject({ code: "ERR_STUB_CONNECTION_LOST" });
    expect(reasons.map((r) => r.code)).toEqual(["ERR_STUB_CONNECTION_LOST"]);
    expect(reasons[0].message).toMatch(/^connection to the runtime lost: /);
  });

  it("aborts the signal of handlers still running when the connection closes", async () => {
    let called = false;
    let aborted!: Promise<unknown>;
    const { stub, runtime } = await connectPlugin({
      createContainer: (_p, _c, ctx) => {
        called = true;
        aborted = new Promise((resolve) =>
          ctx.signal.addEventListener("abort", () => resolve(ctx.signal.reason), { once: true }),
        );
        return aborted.then(() => {});
      },
    });
    track(stub);
    void runtime.plugin.createContainer({}).catch(() => {});
    await expect.poll(() => called).toBe(true);
    runtime.close();
    await expect(aborted).resolves.toMatchObject({ code: Status.CANCELLED });
  });
});

describe("connecting through a socket", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "nri-stub-test-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("fails with ERR_STUB_CONNECT naming the socket when nothing listens", async () => {
    const socketPath = join(dir, "nri.sock");
    const stub = track(new Stub(plugin, { ...base, socketPath }));
    await expect(stub.run()).rejects.toMatchObject({
      code: "ERR_STUB_CONNECT",
      message: expect.stringContaining(`failed to connect to NRI service at ${socketPath}: connect ENOENT`),
    });
  });

  it("connects to the socket path it is given", async () => {
    const socketPath = join(dir, "nri.sock");
    const listener = await ScriptedRuntimeListener.listen(socketPath);
    const stub = track(new Stub(plugin, { ...base, socketPath }));
    const started = stub.start();
    await (await listener.next()).handshake();
    await started;
    listener.close();
  });

  it("with reconnect, waits for a runtime that is not there yet", async () => {
    const socketPath = join(dir, "nri.sock");
    const { logger, lines } = recordingLogger();
    const stub = track(new Stub(plugin, { ...base, logger, socketPath, reconnect: { initialDelayMs: 5 } }));
    const running = stub.run();
    await expect.poll(() => lines.some((line) => line.level === "warn")).toBe(true);
    const listener = await ScriptedRuntimeListener.listen(socketPath);
    await (await listener.next()).handshake();
    await expect.poll(() => stub.connected).toBe(true);
    await stub.stop();
    await running;
    listener.close();
  });

  it("with reconnect, connects again after the runtime goes away, calling onClose each time", async () => {
    const socketPath = join(dir, "nri.sock");
    const listener = await ScriptedRuntimeListener.listen(socketPath);
    let closes = 0;
    const stub = track(
      new Stub(plugin, { ...base, socketPath, reconnect: { initialDelayMs: 5 }, onClose: () => void closes++ }),
    );
    const running = stub.run();
    const first = await listener.next();
    await first.handshake();
    first.close();
    const second = await listener.next();
    await second.handshake();
    expect(second.registrations).toEqual([{ pluginName: "test", pluginIdx: "10", NRIVersion: NRI_VERSION }]);
    expect(closes).toBe(1);
    await stub.stop();
    await running;
    listener.close();
  });
});
