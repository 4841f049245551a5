/*
 * Our plugins (@nri-ts/stub) hosted by the real Go adaptation
 * (github.com/containerd/nri/pkg/adaptation, as pinned in go.mod), driven by
 * cmd/stub-host. Where behaviour is a matter of comparison (errors, timeouts,
 * validation, the runtime going away), the same scenario runs with the Go
 * twin of our fixture plugin, built on Go's pkg/stub, and both must look the
 * same from the runtime's side.
 *
 * Not covered here: StateChange delivery. A v0.12 adaptation only falls back
 * to StateChange when a plugin answers the dedicated RPCs Unimplemented, and
 * our stub implements them all; packages/stub's unit tests drive StateChange
 * as an older runtime (containerd 2.x, CRI-O) does.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  Container,
  CreateContainerRequest,
  CreateContainerResponse,
  PodSandbox,
  StopContainerResponse,
  UpdateContainerResponse,
} from "@nri-ts/api";
import { afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import {
  fixtureCommand,
  LAUNCHES_MS,
  type Process,
  spawnGoPlugin,
  spawnTsPlugin,
  StubHost,
  type StubHostOptions,
  writeLauncher,
} from "../fixtures/stub/harness.js";
import type { FileSpan } from "../fixtures/stub/trace-to-file.js";
import { describeWithGo, goCommand, type OlderNri, pinnedNriModule } from "./go.js";

type Kind = "ts" | "go";

let stubHost: string;
let dir: string;
const hosts: StubHost[] = [];
const plugins: Process[] = [];

const pod = PodSandbox.fromPartial({ id: "pod-1", name: "web", namespace: "default", uid: "u-1" });
const container = Container.fromPartial({ id: "ctr-1", podSandboxId: "pod-1", name: "nginx" });
const podJson = PodSandbox.toJSON(pod);
const containerJson = Container.toJSON(container);
const createRequest = CreateContainerRequest.toJSON(CreateContainerRequest.fromPartial({ pod, container }));
const resources = { memory: { limit: { value: "1073741824" } } };

/** The request of a lifecycle op, as protojson. */
function requestFor(op: string): Record<string, unknown> {
  if (op === "UpdatePodSandbox") return { pod: podJson, linuxResources: resources };
  if (op === "UpdateContainer") return { pod: podJson, container: containerJson, linuxResources: resources };
  if (op.endsWith("PodSandbox")) return { pod: podJson };
  return { pod: podJson, container: containerJson };
}

/**
 * Starts cmd/stub-host with generous timeouts: a plugin registers and answers
 * in time however busy the machine is (a test of a late plugin lowers the
 * request timeout once the plugin is in, with `shortDeadline`).
 */
async function startHost(options: StubHostOptions = {}, binary = stubHost): Promise<StubHost> {
  const host = new StubHost(binary, {
    socket: join(dir, "nri.sock"),
    registrationTimeout: "60s",
    requestTimeout: "60s",
    ...options,
  });
  hosts.push(host);
  await host.call("start");
  return host;
}

/** From now on the host gives plugins 300 ms per request: for a plugin that is to be late. */
async function shortDeadline(host: StubHost): Promise<void> {
  await host.call("request-timeout", { timeoutMs: 300 });
}

/** Starts our fixture plugin or its Go twin on the host's socket, with the same flags. */
function startPlugin(kind: Kind, flags: Record<string, string>): Process {
  const socket = join(dir, "nri.sock");
  const all = { socket, ...flags };
  const plugin =
    kind === "ts"
      ? spawnTsPlugin(Object.entries(all).flatMap(([flag, value]) => [`--${flag}`, value]))
      : spawnGoPlugin(
          stubHost,
          Object.entries(all).flatMap(([flag, value]) => [`-${flag}`, value]),
        );
  plugins.push(plugin);
  return plugin;
}

/** The calls our fixture plugin recorded. */
async function recorded(file: string): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(file, "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

beforeAll(async () => {
  stubHost = await goCommand("stub-host");
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "nri-stub-conformance-"));
});

afterEach(async () => {
  for (const plugin of plugins.splice(0)) plugin.child.kill("SIGKILL");
  await Promise.all(hosts.splice(0).map((host) => host.stop()));
  await rm(dir, { recursive: true, force: true });
});

/**
 * Our fixture plugin (annotating) under the Go adaptation through every
 * event, with its unsolicited updates; every answer is checked. With
 * `traceFile`, the plugin has an OpenTelemetry SDK registered and traces.
 */
async function everyEvent(traceFile?: string): Promise<void> {
  const host = await startHost();
  const record = join(dir, "record");
  await host.call("state", { pods: [podJson], containers: [containerJson] });
  await host.call("fail-updates", { ids: ["fail-me"] });
  startPlugin("ts", { idx: "10", name: "ts", create: "annotate", record, ...(traceFile && { trace: traceFile }) });
  await host.call("wait-sync", { count: 1 });
  expect(host.events.filter((e) => e.event === "synced")).toEqual([
    { event: "synced", updates: [] }, // Start: no pre-installed plugins
    { event: "synced", updates: [] },
  ]);

  const replies: Record<string, unknown> = {};
  for (const op of [
    "RunPodSandbox",
    "UpdatePodSandbox",
    "PostUpdatePodSandbox",
    "CreateContainer",
    "PostCreateContainer",
    "StartContainer",
    "PostStartContainer",
    "UpdateContainer",
    "PostUpdateContainer",
    "StopContainer",
    "RemoveContainer",
    "StopPodSandbox",
    "RemovePodSandbox",
  ]) {
    replies[op] = await host.call(op, { request: requestFor(op) });
  }

  const created = CreateContainerResponse.fromJSON(replies.CreateContainer);
  expect(created.adjust?.annotations).toEqual({ "nri-ts/seen-by": "ts" });
  const updated = UpdateContainerResponse.fromJSON(replies.UpdateContainer);
  expect(updated.update.map((u) => [u.containerId, u.linux?.resources?.cpu?.shares?.value])).toEqual([
    ["ctr-1", 1024n],
  ]);
  const stopped = StopContainerResponse.fromJSON(replies.StopContainer);
  expect(stopped.update.map((u) => [u.containerId, u.linux?.resources?.memory?.limit?.value])).toEqual([
    ["c-other", 1n << 30n],
  ]);

  // StartContainer made the plugin push two updates; the runtime failed one
  const pushed = await host.waitForEvent((e) => e.event === "update");
  expect(pushed.updates?.map((u) => (u as { containerId: string }).containerId)).toEqual(["ctr-1", "fail-me"]);
  await expect
    .poll(async () => (await recorded(record)).find((r) => r.event === "UpdateContainersResult"))
    .toEqual({ event: "UpdateContainersResult", failed: ["fail-me"] });

  const calls = (await recorded(record)).filter((r) => r.event !== "UpdateContainersResult");
  expect(calls[0]).toEqual({
    event: "Configure",
    config: "",
    runtimeName: "stub-host",
    runtimeVersion: "v0.0.0",
    // The Go adaptation reports the NRI module it was built with.
    runtimeNriVersion: (await pinnedNriModule()).split(" ")[1],
    registrationTimeoutMs: 60_000,
    requestTimeoutMs: 60_000,
  });
  expect(calls[1]).toEqual({ event: "Synchronize", pods: ["pod-1"], containers: ["ctr-1"] });
  expect(calls.slice(2).map((r) => r.event)).toEqual([
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
  expect(calls.find((r) => r.event === "UpdateContainer")).toMatchObject({
    container: "ctr-1",
    memory: "1073741824",
  });
  expect(calls.find((r) => r.event === "ValidateContainerAdjustment")).toEqual({
    event: "ValidateContainerAdjustment",
    container: "ctr-1",
    plugins: [{ name: "ts", index: "10" }],
  });
}

describeWithGo("@nri-ts/stub hosted by the Go adaptation", () => {
  it("an external plugin gets every event, and its answers arrive as the Go side expects", async () => {
    await everyEvent();
  });

  it("a traced plugin (an SDK registered) gets and answers the same, its spans roots: the Go adaptation sends no context", async () => {
    const file = join(dir, "spans");
    await everyEvent(file);
    const spans = (await readFile(file, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as FileSpan);
    const served = spans.filter((span) => span.kind === 1);
    expect(served.map((span) => span.attributes["rpc.method"])).toEqual(
      (await recorded(join(dir, "record"))).filter((r) => r.event !== "UpdateContainersResult").map((r) => r.event),
    );
    expect(served.every((span) => span.parentSpanId === null && span.status.code === 0)).toBe(true);
    expect(new Set(served.map((span) => span.traceId)).size).toBe(served.length);
    // its unsolicited updates went out with trace context, which the Go runtime took without a word
    const [update] = spans.filter((span) => span.kind === 2);
    expect(update).toMatchObject({ name: "nri.pkg.api.v1alpha1.Runtime/UpdateContainers", status: { code: 0 } });
    expect(update.parentSpanId).toBe(served.find((span) => span.attributes["rpc.method"] === "StartContainer")?.spanId);
  });

  it("a plugin gets only the events its configure narrowed the subscription to", async () => {
    const host = await startHost();
    const record = join(dir, "record");
    startPlugin("ts", { idx: "10", name: "ts", events: "CreateContainer,StopContainer", record });
    await host.call("wait-sync", { count: 1 });
    for (const op of ["RunPodSandbox", "CreateContainer", "StartContainer", "StopContainer", "RemoveContainer"]) {
      await host.call(op, { request: requestFor(op) });
    }
    const events = (await recorded(record)).map((r) => r.event);
    expect(events).toEqual(["Configure", "Synchronize", "CreateContainer", "StopContainer"]);
  });

  it("a runtime-launched plugin connects over the inherited fd and gets its configuration file", {
    timeout: LAUNCHES_MS,
  }, async () => {
    const pluginDir = join(dir, "plugins");
    const configDir = join(dir, "conf.d");
    const record = join(dir, "record");
    await Promise.all([mkdir(pluginDir), mkdir(configDir)]);
    await writeLauncher(pluginDir, "10-launched", fixtureCommand(["--create", "annotate", "--record", record]));
    await writeFile(join(configDir, "10-launched.conf"), "answer: 42\n");

    // the launch (Node with tsx) takes seconds on a busy machine: startHost's 60s to register, not Go's default 5s
    const host = await startHost({ socket: undefined, pluginPath: pluginDir, pluginConfigPath: configDir });
    const created = CreateContainerResponse.fromJSON(await host.call("CreateContainer", { request: createRequest }));
    expect(created.adjust?.annotations).toEqual({ "nri-ts/seen-by": "launched" });
    const [configure] = await recorded(record);
    expect(configure).toMatchObject({ event: "Configure", config: "answer: 42\n" });
  });

  for (const kind of ["ts", "go"] as const) {
    it(`${kind}: a handler's error fails the request, and the plugin keeps serving`, async () => {
      const host = await startHost();
      const plugin = startPlugin(kind, {
        idx: "10",
        name: "x",
        create: "fail",
        events: "CreateContainer,StartContainer",
      });
      await host.call("wait-sync", { count: 1 });
      const failed = await host.request("CreateContainer", { request: createRequest });
      expect(failed.error).toBe("rpc error: code = Unknown desc = create failed on purpose");
      expect(await host.request("StartContainer", { request: createRequest })).toEqual({});
      expect(plugin.child.exitCode).toBeNull();
    });

    it(`${kind}: a handler past the deadline is dropped, the request goes on, and the plugin exits 1`, async () => {
      const host = await startHost();
      const plugin = startPlugin(kind, { idx: "10", name: "x", create: "hang", events: "CreateContainer" });
      await host.call("wait-sync", { count: 1 });
      await shortDeadline(host);
      const reply = await host.request("CreateContainer", { request: createRequest });
      expect(reply.error).toBeUndefined();
      expect(CreateContainerResponse.fromJSON(reply.response).adjust?.annotations ?? {}).toEqual({});
      expect(await host.call("plugins")).toEqual({ count: 0 });
      expect((await plugin.exited).code).toBe(1);
    });

    it(`${kind}: with failRequest and keepConnected, a handler past the deadline fails the request naming the plugin, and the plugin stays`, async () => {
      const host = await startHost();
      const plugin = startPlugin(kind, {
        idx: "10",
        name: "x",
        create: "hang",
        events: "CreateContainer",
        policy: "fail,keep",
      });
      await host.call("wait-sync", { count: 1 });
      await shortDeadline(host);
      for (let round = 0; round < 2; round++) {
        const reply = await host.request("CreateContainer", { request: createRequest });
        expect(reply.error).toBe("plugin 10-x failed to handle CreateContainer request: context deadline exceeded");
        expect(await host.call("plugins")).toEqual({ count: 1 });
      }
      expect(plugin.child.exitCode).toBeNull();
    });

    it(`${kind}: with keepConnected alone, the request goes on without the late plugin, which stays`, async () => {
      const host = await startHost();
      startPlugin(kind, { idx: "10", name: "x", create: "hang", events: "CreateContainer", policy: "keep" });
      await host.call("wait-sync", { count: 1 });
      await shortDeadline(host);
      const reply = await host.request("CreateContainer", { request: createRequest });
      expect(reply.error).toBeUndefined();
      expect(await host.call("plugins")).toEqual({ count: 1 });
    });

    it(`${kind}: with failRequest alone, a late plugin fails the request and is dropped`, async () => {
      const host = await startHost();
      const plugin = startPlugin(kind, {
        idx: "10",
        name: "x",
        create: "hang",
        events: "CreateContainer",
        policy: "fail",
      });
      await host.call("wait-sync", { count: 1 });
      await shortDeadline(host);
      const reply = await host.request("CreateContainer", { request: createRequest });
      expect(reply.error).toBe("plugin 10-x failed to handle CreateContainer request: context deadline exceeded");
      expect(await host.call("plugins")).toEqual({ count: 0 });
      expect((await plugin.exited).code).toBe(1);
    });

    it(`${kind}: an empty policy is no policy: a late plugin is dropped and the request goes on`, async () => {
      const host = await startHost();
      startPlugin(kind, { idx: "10", name: "x", create: "hang", events: "CreateContainer", policy: "none" });
      await host.call("wait-sync", { count: 1 });
      await shortDeadline(host);
      expect((await host.request("CreateContainer", { request: createRequest })).error).toBeUndefined();
      expect(await host.call("plugins")).toEqual({ count: 0 });
    });

    it(`${kind}: a policy does not cover the plugin's own error: it fails the request unwrapped`, async () => {
      const host = await startHost();
      startPlugin(kind, { idx: "10", name: "x", create: "fail", events: "CreateContainer", policy: "keep" });
      await host.call("wait-sync", { count: 1 });
      const failed = await host.request("CreateContainer", { request: createRequest });
      expect(failed.error).toBe("rpc error: code = Unknown desc = create failed on purpose");
      expect(await host.call("plugins")).toEqual({ count: 1 });
    });

    it(`${kind}: a validator's rejection fails container creation with the runtime's text`, async () => {
      const host = await startHost();
      startPlugin(kind, { idx: "10", name: "annotator", create: "annotate", events: "CreateContainer" });
      await host.call("wait-sync", { count: 1 });
      startPlugin(kind, {
        idx: "20",
        name: "validator",
        events: "ValidateContainerAdjustment",
        reject: "no annotations",
      });
      await host.call("wait-sync", { count: 2 });
      const reply = await host.request("CreateContainer", { request: createRequest });
      expect(reply.error).toBe('validator "20-validator" rejected container adjustment, reason: no annotations');
    });

    it(`${kind}: a validator that accepts lets the adjustment through`, async () => {
      const host = await startHost();
      startPlugin(kind, { idx: "10", name: "annotator", create: "annotate", events: "CreateContainer" });
      await host.call("wait-sync", { count: 1 });
      startPlugin(kind, { idx: "20", name: "validator", events: "ValidateContainerAdjustment" });
      await host.call("wait-sync", { count: 2 });
      const created = CreateContainerResponse.fromJSON(await host.call("CreateContainer", { request: createRequest }));
      expect(created.adjust?.annotations).toEqual({ "nri-ts/seen-by": "annotator" });
    });

    it(`${kind}: the runtime going away ends the plugin with exit code 1`, async () => {
      const host = await startHost();
      const plugin = startPlugin(kind, { idx: "10", name: "x", events: "CreateContainer" });
      await host.call("wait-sync", { count: 1 });
      await host.stop();
      expect((await plugin.exited).code).toBe(1);
    });
  }

  it("ours refuses a name the runtime would refuse, before connecting", async () => {
    const host = await startHost();
    const plugin = startPlugin("ts", { idx: "10", name: "bad name" });
    const { code, stderr } = await plugin.exited;
    // a usage error: said on stderr in words, exit code 2
    expect(code).toBe(2);
    expect(stderr).toContain(`invalid plugin name "bad name": contains invalid character ' '`);
    expect(host.events.filter((e) => e.event === "synced")).toHaveLength(1); // Start's own
  });
});

for (const nri of ["v0.12.3", "v0.12.2"] as const satisfies readonly OlderNri[]) {
  describeWithGo(
    `@nri-ts/stub with a failure policy under a Go runtime on NRI ${nri}${nri === "v0.12.3" ? " (containerd 2.4.2)" : ""}`,
    () => {
      let olderHost: string;
      beforeAll(async () => {
        olderHost = await goCommand("stub-host", nri);
      }, 300_000);

      it("is configured (the runtime skips the policy field), serves, and gets the old rules: dropped after a timeout, the request goes on", async () => {
        const record = join(dir, "record");
        const host = await startHost({}, olderHost);
        const plugin = startPlugin("ts", {
          idx: "10",
          name: "x",
          create: "hang",
          events: "CreateContainer,StopContainer",
          policy: "fail,keep",
          record,
        });
        await host.call("wait-sync", { count: 1 });
        const [configure] = await recorded(record);
        expect(configure).toMatchObject({ event: "Configure", runtimeNriVersion: nri });
        expect(await host.request("StopContainer", { request: requestFor("StopContainer") })).toEqual({ response: {} });
        await shortDeadline(host);
        const reply = await host.request("CreateContainer", { request: createRequest });
        expect(reply.error).toBeUndefined();
        expect(await host.call("plugins")).toEqual({ count: 0 });
        const { code, stderr } = await plugin.exited;
        expect(code).toBe(1);
        expect(stderr).toContain(
          `the runtime's NRI ${nri} predates failure policies (v0.12.4): it ignores this plugin's`,
        );
      });
    },
  );
}
