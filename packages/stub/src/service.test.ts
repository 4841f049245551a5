import {
  AdjustmentBuilder,
  type Container,
  CreateContainerResponse,
  Event,
  type LinuxResources,
  type PodSandbox,
  UpdateBuilder,
} from "@nri-ts/api";
import { ClientError, ServerError, Status } from "nice-grpc-common";
import { afterEach, describe, expect, it } from "vitest";
import type { HandlerContext, Plugin } from "./plugin.js";
import type { Stub } from "./stub.js";
import { connectPlugin } from "./harness/connect-plugin.js";
import type { ScriptedRuntime } from "./harness/scripted-runtime.js";

const stubs: Stub[] = [];
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((stub) => stub.stop()));
});

async function connect(plugin: Plugin): Promise<ScriptedRuntime> {
  const { stub, runtime } = await connectPlugin(plugin);
  stubs.push(stub);
  return runtime;
}

const pod = { id: "pod-1", name: "web", namespace: "default" };
const container = { id: "ctr-1", podSandboxId: "pod-1", name: "nginx", exitCode: 127, createdAt: 1767225600000000000n };
const resources = { cpu: { shares: { value: 512n } }, memory: { limit: { value: 1n << 30n } } };

/** A plugin with every lifecycle handler, recording what each one got. */
function recordingPlugin() {
  const calls: Array<[string, ...unknown[]]> = [];
  const pods = (name: string) => (p: PodSandbox) => void calls.push([name, p.id]);
  const containers = (name: string) => (p: PodSandbox, c: Container) => void calls.push([name, p.id, c.id]);
  const plugin: Plugin = {
    runPodSandbox: pods("runPodSandbox"),
    updatePodSandbox: (p: PodSandbox, overhead?: LinuxResources, res?: LinuxResources) =>
      void calls.push(["updatePodSandbox", p.id, overhead?.cpu?.shares?.value, res?.cpu?.shares?.value]),
    postUpdatePodSandbox: pods("postUpdatePodSandbox"),
    stopPodSandbox: pods("stopPodSandbox"),
    removePodSandbox: pods("removePodSandbox"),
    createContainer: (p, c) => void calls.push(["createContainer", p.id, c.id, c.exitCode, c.createdAt]),
    postCreateContainer: containers("postCreateContainer"),
    startContainer: containers("startContainer"),
    postStartContainer: containers("postStartContainer"),
    updateContainer: (p, c, res) => void calls.push(["updateContainer", p.id, c.id, res?.memory?.limit?.value]),
    postUpdateContainer: containers("postUpdateContainer"),
    stopContainer: containers("stopContainer"),
    removeContainer: containers("removeContainer"),
    validateContainerAdjustment: (request) => void calls.push(["validateContainerAdjustment", request.container?.id]),
  };
  return { plugin, calls };
}

describe("lifecycle events", () => {
  it("delivers every dedicated request to its handler with the pod, container and resources", async () => {
    const { plugin, calls } = recordingPlugin();
    const runtime = await connect(plugin);
    const p = runtime.plugin;
    await p.runPodSandbox({ pod });
    await p.updatePodSandbox({
      pod,
      overheadLinuxResources: { cpu: { shares: { value: 2n } } },
      linuxResources: resources,
    });
    await p.postUpdatePodSandbox({ pod });
    await p.createContainer({ pod, container });
    await p.postCreateContainer({ pod, container });
    await p.startContainer({ pod, container });
    await p.postStartContainer({ pod, container });
    await p.updateContainer({ pod, container, linuxResources: resources });
    await p.postUpdateContainer({ pod, container });
    await p.stopContainer({ pod, container });
    await p.removeContainer({ pod, container });
    await p.stopPodSandbox({ pod });
    await p.removePodSandbox({ pod });
    await p.validateContainerAdjustment({ pod, container });
    expect(calls).toEqual([
      ["runPodSandbox", "pod-1"],
      ["updatePodSandbox", "pod-1", 2n, 512n],
      ["postUpdatePodSandbox", "pod-1"],
      ["createContainer", "pod-1", "ctr-1", 127, 1767225600000000000n],
      ["postCreateContainer", "pod-1", "ctr-1"],
      ["startContainer", "pod-1", "ctr-1"],
      ["postStartContainer", "pod-1", "ctr-1"],
      ["updateContainer", "pod-1", "ctr-1", 1n << 30n],
      ["postUpdateContainer", "pod-1", "ctr-1"],
      ["stopContainer", "pod-1", "ctr-1"],
      ["removeContainer", "pod-1", "ctr-1"],
      ["stopPodSandbox", "pod-1"],
      ["removePodSandbox", "pod-1"],
      ["validateContainerAdjustment", "ctr-1"],
    ]);
  });

  it("delivers the events older runtimes send only through StateChange to the same handlers", async () => {
    const { plugin, calls } = recordingPlugin();
    const runtime = await connect(plugin);
    const podEvents = [
      Event.RUN_POD_SANDBOX,
      Event.POST_UPDATE_POD_SANDBOX,
      Event.STOP_POD_SANDBOX,
      Event.REMOVE_POD_SANDBOX,
    ];
    const containerEvents = [
      Event.POST_CREATE_CONTAINER,
      Event.START_CONTAINER,
      Event.POST_START_CONTAINER,
      Event.POST_UPDATE_CONTAINER,
      Event.REMOVE_CONTAINER,
    ];
    for (const event of podEvents) await runtime.plugin.stateChange({ event, pod });
    for (const event of containerEvents) await runtime.plugin.stateChange({ event, pod, container });
    expect(calls).toEqual([
      ["runPodSandbox", "pod-1"],
      ["postUpdatePodSandbox", "pod-1"],
      ["stopPodSandbox", "pod-1"],
      ["removePodSandbox", "pod-1"],
      ["postCreateContainer", "pod-1", "ctr-1"],
      ["startContainer", "pod-1", "ctr-1"],
      ["postStartContainer", "pod-1", "ctr-1"],
      ["postUpdateContainer", "pod-1", "ctr-1"],
      ["removeContainer", "pod-1", "ctr-1"],
    ]);
  });

  it("answers a StateChange for an event it never carries with an empty reply, like Go's stub", async () => {
    const { plugin, calls } = recordingPlugin();
    const runtime = await connect(plugin);
    await expect(runtime.plugin.stateChange({ event: Event.CREATE_CONTAINER, pod, container })).resolves.toEqual({});
    expect(calls).toEqual([]);
  });

  it("fails a StateChange whose handler throws, as the dedicated request would", async () => {
    const runtime = await connect({
      startContainer: () => {
        throw new Error("cannot start");
      },
    });
    await expect(runtime.plugin.stateChange({ event: Event.START_CONTAINER, pod, container })).rejects.toMatchObject({
      code: Status.UNKNOWN,
      details: "cannot start",
    });
  });

  it("answers events without a handler with an empty reply", async () => {
    const runtime = await connect({ createContainer: () => {} });
    await expect(runtime.plugin.startContainer({ pod, container })).resolves.toEqual({});
    await expect(runtime.plugin.stopContainer({ pod, container })).resolves.toEqual({ update: [] });
    await expect(runtime.plugin.validateContainerAdjustment({ pod, container })).resolves.toEqual({
      reject: false,
      reason: "",
    });
  });

  it("hands handlers an empty pod and container when the runtime sends none", async () => {
    const seen: Array<[string, string]> = [];
    const runtime = await connect({ startContainer: (p, c) => void seen.push([p.id, c.id]) });
    await runtime.plugin.startContainer({});
    expect(seen).toEqual([["", ""]]);
  });
});

describe("answers", () => {
  it("sends a bare adjustment from createContainer", async () => {
    const runtime = await connect({ createContainer: () => ({ annotations: { "example.com/seen": "yes" } }) });
    const reply = await runtime.plugin.createContainer({ pod, container });
    expect(reply).toEqual(
      CreateContainerResponse.fromPartial({ adjust: { annotations: { "example.com/seen": "yes" } } }),
    );
  });

  it("sends adjustment, updates and evictions from createContainer, builders included", async () => {
    const runtime = await connect({
      createContainer: () => ({
        adjust: new AdjustmentBuilder().addEnv("SEEN", "1").removeAnnotation("old"),
        update: [new UpdateBuilder("ctr-2").setCpuShares(256)],
        evict: [{ containerId: "ctr-3", reason: "no room" }],
      }),
    });
    const reply = await runtime.plugin.createContainer({ pod, container });
    expect(reply.adjust?.env).toEqual([{ key: "SEEN", value: "1" }]);
    expect(reply.adjust?.annotations).toEqual({ "-old": "" });
    expect(reply.update.map((u) => [u.containerId, u.linux?.resources?.cpu?.shares?.value])).toEqual([["ctr-2", 256n]]);
    expect(reply.evict).toEqual([{ containerId: "ctr-3", reason: "no room" }]);
  });

  it("sends updates and evictions from updateContainer and updates from stopContainer", async () => {
    const runtime = await connect({
      updateContainer: (_p, c) => ({
        update: [{ containerId: c.id, linux: { resources: { cpu: { shares: { value: 1024n } } } } }],
        evict: [{ containerId: "ctr-9", reason: "r" }],
      }),
      stopContainer: () => [{ containerId: "ctr-2", ignoreFailure: true }],
    });
    const updated = await runtime.plugin.updateContainer({ pod, container, linuxResources: resources });
    expect(updated.update.map((u) => [u.containerId, u.linux?.resources?.cpu?.shares?.value])).toEqual([
      ["ctr-1", 1024n],
    ]);
    expect(updated.evict).toEqual([{ containerId: "ctr-9", reason: "r" }]);
    const stopped = await runtime.plugin.stopContainer({ pod, container });
    expect(stopped.update).toEqual([{ containerId: "ctr-2", ignoreFailure: true, linux: undefined }]);
  });

  it("turns a validator's throw into a rejection with its message, not an error", async () => {
    const runtime = await connect({
      validateContainerAdjustment: (request) => {
        if (request.adjust?.annotations.forbidden !== undefined) throw new Error("forbidden annotation");
      },
    });
    await expect(runtime.plugin.validateContainerAdjustment({ pod, container, adjust: {} })).resolves.toEqual({
      reject: false,
      reason: "",
    });
    await expect(
      runtime.plugin.validateContainerAdjustment({ pod, container, adjust: { annotations: { forbidden: "1" } } }),
    ).resolves.toEqual({ reject: true, reason: "forbidden annotation" });
  });
});

describe("failures", () => {
  it("answers a handler's throw with Unknown and its message, and keeps serving", async () => {
    let calls = 0;
    const runtime = await connect({
      createContainer: () => {
        calls++;
        if (calls === 1) throw new Error("no GPU left");
        return { annotations: { ok: "1" } };
      },
    });
    const error = await runtime.plugin.createContainer({ pod, container }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({ code: Status.UNKNOWN, details: "no GPU left" });
    const reply = await runtime.plugin.createContainer({ pod, container });
    expect(reply.adjust?.annotations).toEqual({ ok: "1" });
  });

  it("keeps the code of a thrown ServerError", async () => {
    const runtime = await connect({
      removeContainer: () => {
        throw new ServerError(Status.FAILED_PRECONDITION, "still mounted");
      },
    });
    await expect(runtime.plugin.removeContainer({ pod, container })).rejects.toMatchObject({
      code: Status.FAILED_PRECONDITION,
      details: "still mounted",
    });
  });

  it("fires the handler's signal at the request's deadline", async () => {
    let reason: unknown;
    const runtime = await connect({
      createContainer: async (_p, _c, ctx: HandlerContext) => {
        await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
        reason = ctx.signal.reason;
        throw ctx.signal.reason;
      },
    });
    await expect(
      runtime.plugin.createContainer({ pod, container }, { deadline: Date.now() + 20 }),
    ).rejects.toMatchObject({ code: Status.DEADLINE_EXCEEDED });
    await expect.poll(() => reason).toMatchObject({ code: Status.DEADLINE_EXCEEDED });
  });

  it("keeps the signal, logger and stub in a copy of the handler's context", async () => {
    let reason: unknown;
    const runtime = await connect({
      createContainer: async (_p, _c, ctx: HandlerContext) => {
        const copy = { ...ctx };
        expect(Object.keys(copy).sort()).toEqual(["logger", "signal", "stub"]);
        await new Promise((resolve) => copy.signal.addEventListener("abort", resolve, { once: true }));
        reason = copy.signal.reason;
        throw copy.signal.reason;
      },
    });
    await expect(
      runtime.plugin.createContainer({ pod, container }, { deadline: Date.now() + 20 }),
    ).rejects.toMatchObject({ code: Status.DEADLINE_EXCEEDED });
    await expect.poll(() => reason).toMatchObject({ code: Status.DEADLINE_EXCEEDED });
  });

  it("runs requests concurrently: a slow handler does not hold up others", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const runtime = await connect({
      createContainer: async (_p, c) => {
        if (c.id === "slow") await gate;
        return { annotations: { id: c.id } };
      },
    });
    const slow = runtime.plugin.createContainer({ pod, container: { id: "slow" } });
    const fast = await runtime.plugin.createContainer({ pod, container: { id: "fast" } });
    expect(fast.adjust?.annotations).toEqual({ id: "fast" });
    release();
    expect((await slow).adjust?.annotations).toEqual({ id: "slow" });
  });
});

describe("synchronize", () => {
  it("joins a split Synchronize: intermediate pages are answered {more: true} without updates", async () => {
    const seen: Array<[string[], string[]]> = [];
    const runtime = await connect({
      createContainer: () => {},
      synchronize: (pods, containers) => {
        seen.push([pods.map((p) => p.id), containers.map((c) => c.id)]);
        return [new UpdateBuilder("c3").setMemoryLimit(1n << 20n)];
      },
    });
    seen.length = 0; // the handshake's own (empty) Synchronize
    const page1 = await runtime.plugin.synchronize({ pods: [{ id: "p1" }], containers: [{ id: "c1" }], more: true });
    const page2 = await runtime.plugin.synchronize({ pods: [{ id: "p2" }], containers: [], more: true });
    expect([page1, page2]).toEqual([
      { update: [], more: true },
      { update: [], more: true },
    ]);
    expect(seen).toEqual([]);
    const last = await runtime.plugin.synchronize({ pods: [], containers: [{ id: "c2" }, { id: "c3" }], more: false });
    expect(seen).toEqual([
      [
        ["p1", "p2"],
        ["c1", "c2", "c3"],
      ],
    ]);
    expect(last.more).toBe(false);
    expect(last.update.map((u) => [u.containerId, u.linux?.resources?.memory?.limit?.value])).toEqual([
      ["c3", 1n << 20n],
    ]);
  });

  it("echoes more when the plugin has no synchronize handler", async () => {
    const runtime = await connect({ createContainer: () => {} });
    await expect(runtime.plugin.synchronize({ more: true })).resolves.toEqual({ update: [], more: true });
    await expect(runtime.plugin.synchronize({ more: false })).resolves.toEqual({ update: [], more: false });
  });
});

describe("shutdown", () => {
  it("calls the shutdown handler", async () => {
    let shutdown = 0;
    const runtime = await connect({ createContainer: () => {}, shutdown: () => void shutdown++ });
    await runtime.plugin.shutdown({});
    expect(shutdown).toBe(1);
  });
});
