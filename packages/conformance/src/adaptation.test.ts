/*
 * @nri-ts/adaptation against the Go reference: Go plugins, built on the
 * upstream stub (cmd/adaptation-plugin), connect to our adaptation and to
 * the upstream Go adaptation (cmd/adaptation-driver); the same scenario runs
 * through both, and every answer must be the same: merged adjustments,
 * updates, the request as the plugins left it, error texts, what the
 * plugins synchronized, and the events each plugin saw, in order.
 */
import { symlink, mkdtemp, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Adaptation } from "@nri-ts/adaptation";
import {
  Container,
  ContainerState,
  type CreateContainerRequest,
  type CreateContainerResponse,
  PodSandbox,
} from "@nri-ts/api";
import { afterEach, beforeAll, beforeEach, expect, test } from "vitest";
import {
  type GoPlugin,
  pluginLog,
  readable,
  readableSync,
  type RunOptions,
  type RunResult,
  runGo,
  runOurs,
  type Scenario,
  step,
} from "../fixtures/adaptation/harness.js";
import { describeWithGo, goCommand } from "./go.js";
import { TraceRecorder } from "../../ttrpc/src/testing/trace-recorder.js";

let driverBin: string;
let pluginBin: string;
let dir: string;

beforeAll(async () => {
  [driverBin, pluginBin] = await Promise.all([goCommand("adaptation-driver"), goCommand("adaptation-plugin")]);
}, 300_000);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "nri-adaptation-conformance-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const web = { name: "web" };
const pod0 = PodSandbox.fromPartial({
  id: "pod0",
  name: "pod0",
  uid: "uid-pod0",
  namespace: "default",
  annotations: {
    [`devices.noderesource.dev/container.${web.name}`]: JSON.stringify([
      { path: "/dev/nri-null", type: "c", major: 1, minor: 3, file_mode: 0o666 },
    ]),
    [`mounts.noderesource.dev/container.${web.name}`]: JSON.stringify([
      { source: "/srv/data", destination: "/data", type: "bind", options: ["rbind", "ro"] },
    ]),
    [`ulimits.noderesource.dev/container.${web.name}`]: JSON.stringify([{ type: "nofile", hard: 1024, soft: 512 }]),
  },
});
const running = Container.fromPartial({
  id: "ctr0",
  podSandboxId: "pod0",
  name: "sidecar",
  state: ContainerState.CONTAINER_RUNNING,
  createdAt: 1_767_225_600_000_000_000n,
  startedAt: 1_767_225_601_000_000_000n,
});
const exited = Container.fromPartial({
  id: "ctr1",
  podSandboxId: "pod0",
  name: "job",
  state: ContainerState.CONTAINER_STOPPED,
  createdAt: 1_767_225_600_000_000_000n,
  startedAt: 1_767_225_601_000_000_000n,
  finishedAt: 1_767_225_700_000_000_000n,
  exitCode: 137,
  statusReason: "OOMKilled",
  statusMessage: "killed: out of memory",
});
const created = Container.fromPartial({
  id: "ctr2",
  podSandboxId: "pod0",
  name: web.name,
  state: ContainerState.CONTAINER_CREATED,
  args: ["/bin/web", "--port=80"],
  env: ["PATH=/bin", "ANNOTATED_BY_annotator=old"],
  mounts: [{ source: "/old", destination: "/data", type: "bind", options: [] }],
  createdAt: 1_767_225_800_000_000_000n,
});
const started = Container.fromPartial({
  ...created,
  state: ContainerState.CONTAINER_RUNNING,
  startedAt: 1_767_225_801_000_000_000n,
});
const stopped = Container.fromPartial({
  ...started,
  state: ContainerState.CONTAINER_STOPPED,
  finishedAt: 1_767_225_900_000_000_000n,
  exitCode: 0,
  statusReason: "Completed",
});
const resources = { cpu: { shares: { value: 512n }, cpus: "0-1" }, memory: { limit: { value: 1n << 29n } } };

function lifecycle(): Scenario["steps"] {
  return [
    step("RunPodSandbox", { pod: pod0 }),
    step("UpdatePodSandbox", { pod: pod0, linuxResources: resources }),
    step("PostUpdatePodSandbox", { pod: pod0 }),
    step("CreateContainer", { pod: pod0, container: created }),
    step("PostCreateContainer", { pod: pod0, container: created }),
    step("StartContainer", { pod: pod0, container: started }),
    step("PostStartContainer", { pod: pod0, container: started }),
    step("UpdateContainer", { pod: pod0, container: started, linuxResources: resources }),
    step("PostUpdateContainer", { pod: pod0, container: started }),
    step("StopContainer", { pod: pod0, container: stopped }),
    step("RemoveContainer", { pod: pod0, container: stopped }),
    step("CreateContainer", { pod: pod0, container: { ...created, id: "ctr3", name: "forbidden" } }),
    step("CreateContainer", { pod: pod0, container: { ...created, id: "ctr4", name: "other" } }),
    step("StopPodSandbox", { pod: pod0 }),
    step("RemovePodSandbox", { pod: pod0 }),
  ];
}

async function logOf(plugin: GoPlugin): Promise<unknown[]> {
  const text = await readFile(pluginLog(dir, plugin), "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line));
}

/** Runs the scenario through Go's adaptation and ours, each in its own directory, and returns both. */
async function both(scenario: Scenario, plugins: GoPlugin[], extra: Partial<RunOptions> = {}, bin = pluginBin) {
  const base = dir;
  const logs: Record<"go" | "ours", Record<string, unknown[]>> = { go: {}, ours: {} };
  const runs: Partial<Record<"go" | "ours", RunResult>> = {};
  for (const side of ["go", "ours"] as const) {
    dir = join(base, side);
    await mkdir(dir);
    const options: RunOptions = { pluginBin: bin, plugins, dir, ...extra };
    runs[side] = side === "go" ? await runGo(driverBin, scenario, options) : await runOurs(scenario, options);
    for (const plugin of plugins) logs[side][`${plugin.index}-${plugin.name}`] = await logOf(plugin);
  }
  dir = base;
  return { go: runs.go!, ours: runs.ours!, logs };
}

/**
 * Runs the scenario through our adaptation with an OpenTelemetry SDK
 * registered (so W3C trace context goes out in every request's metadata);
 * resolves to the run, the plugins' logs and the spans.
 */
async function traced(scenario: Scenario, plugins: GoPlugin[]) {
  const base = dir;
  dir = join(base, "traced");
  await mkdir(dir);
  const recorder = await TraceRecorder.start();
  try {
    const run = await runOurs(scenario, { pluginBin, plugins, dir });
    const logs: Record<string, unknown[]> = {};
    for (const plugin of plugins) logs[`${plugin.index}-${plugin.name}`] = await logOf(plugin);
    return { run, logs, spans: recorder.spans };
  } finally {
    await recorder.stop();
    dir = base;
  }
}

function expectSame(go: RunResult, ours: RunResult): void {
  expect(ours.results.map(readable)).toEqual(go.results.map(readable));
  expect(readableSync(ours)).toEqual(readableSync(go));
}

describeWithGo("@nri-ts/adaptation and the Go adaptation, same Go plugins", () => {
  const plugins: GoPlugin[] = [
    { index: "10", name: "injector", modes: ["device-injector"] },
    { index: "20", name: "ulimits", modes: ["ulimit-adjuster"] },
    { index: "30", name: "annotator", modes: ["annotator"], flags: ["-shared"] },
    { index: "40", name: "updater", modes: ["updater"] },
    { index: "50", name: "validator", modes: ["validator"] },
    { index: "60", name: "logger", modes: ["logger"] },
  ];

  test("a whole pod lifecycle: every answer, every synchronization and every event alike", async () => {
    const scenario: Scenario = { pods: [pod0], containers: [running, exited], steps: lifecycle() };
    const { go, ours, logs } = await both(scenario, plugins);
    expectSame(go, ours);
    expect(ours.results).toHaveLength(scenario.steps.length);
    expect(logs.ours).toEqual(logs.go);
    expect(logs.go["60-logger"]!.map((line) => (line as { event: string }).event)).toEqual([
      "Configure",
      "Synchronize",
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
      "CreateContainer",
      "ValidateContainerAdjustment",
      "CreateContainer",
      "ValidateContainerAdjustment",
      "StopPodSandbox",
      "RemovePodSandbox",
    ]);

    // and what they agree on is what the plugins asked for
    const results = ours.results.map(readable);
    const create = results[3] as { response: CreateContainerResponse; request: CreateContainerRequest; error: string };
    expect(create.error).toBe("");
    expect(create.response.adjust?.linux?.devices.map((d) => d.path)).toEqual(["/dev/nri-null"]);
    expect(create.response.adjust?.mounts.map((m) => m.destination)).toEqual(["/data"]);
    expect(create.response.adjust?.rlimits).toEqual([{ type: "RLIMIT_NOFILE", hard: 1024n, soft: 512n }]);
    expect(create.response.adjust?.annotations).toEqual({ "annotator.annotator": "done", shared: "annotator" });
    expect(create.request.container?.env).toEqual(["PATH=/bin", "ANNOTATED_BY_annotator=30"]);
    expect(create.response.update.map((u) => u.containerId)).toEqual(["ctr0", "ctr1"]);
    expect(results[11]?.error).toBe(
      `validator "50-validator" rejected container adjustment, reason: annotation "forbidden" is not allowed`,
    );
    const loggerEvents = logs.ours["60-logger"] as Array<Record<string, unknown>>;
    expect(loggerEvents.find((event) => event.event === "StopContainer")).toMatchObject({
      container: "ctr2",
      exitCode: 0,
      statusReason: "Completed",
      finishedAt: 1_767_225_900_000_000_000,
    });
  });

  test("with tracing on, W3C trace context in every request's metadata: the Go plugins get it and answer alike", async () => {
    const scenario: Scenario = { pods: [pod0], containers: [running, exited], steps: lifecycle() };
    const { go, logs } = await both(scenario, plugins);
    const ours = await traced(scenario, plugins);
    expectSame(go, ours.run);
    // what the Go plugins logged, less the traceparent they got (the Go adaptation sends none)
    const withoutTraceparent = (lines: unknown[]) =>
      lines.map((line) => {
        const { traceparent: _, ...rest } = line as Record<string, unknown>;
        return rest;
      });
    expect(
      Object.fromEntries(Object.entries(ours.logs).map(([name, lines]) => [name, withoutTraceparent(lines)])),
    ).toEqual(logs.go);
    expect(logs.go["60-logger"]!.some((line) => "traceparent" in (line as object))).toBe(false);

    // each request (Configure is not traced) came with the context of the runtime's call to that plugin
    const calls = new Map(
      ours.spans
        .filter((span) => span.kind === 2)
        .map((span) => [`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`, span]),
    );
    const loggerLines = ours.logs["60-logger"] as Array<{ event: string; traceparent?: string }>;
    expect(loggerLines[0]).toEqual(expect.not.objectContaining({ traceparent: expect.anything() }));
    for (const { event, traceparent } of loggerLines.slice(1)) {
      const call = calls.get(traceparent ?? "");
      expect(call?.attributes, `${event} with traceparent ${traceparent}`).toMatchObject({
        "rpc.system": "ttrpc",
        "rpc.method": event,
        "nri.plugin.index": "60",
        "nri.plugin.name": "logger",
      });
    }
  });

  test("the same Go plugins built on NRI v0.12.2 (no failure policy): the whole lifecycle alike", async () => {
    const olderPlugins = await goCommand("adaptation-plugin", "v0.12.2");
    const scenario: Scenario = { pods: [pod0], containers: [running, exited], steps: lifecycle() };
    const { go, ours, logs } = await both(scenario, plugins, {}, olderPlugins);
    expectSame(go, ours);
    expect(logs.ours).toEqual(logs.go);
    expect(ours.results.map((r) => r.error)).toEqual(go.results.map((r) => r.error));
  }, 300_000);

  test("two plugins setting the same annotation: the same conflict", async () => {
    const scenario: Scenario = {
      pods: [pod0],
      containers: [],
      steps: [step("CreateContainer", { pod: pod0, container: created })],
    };
    const { go, ours } = await both(scenario, [
      { index: "30", name: "first", modes: ["annotator"], flags: ["-shared"] },
      { index: "31", name: "second", modes: ["annotator"], flags: ["-shared"] },
    ]);
    // Go merges a plugin's annotations in random map order, so the request it
    // leaves behind holds a random part of the failing plugin's map; a runtime
    // discards it with the error. Only what the runtime gets back is compared.
    const outcome = ({ results }: RunResult) => results.map(({ op, error, response }) => ({ op, error, response }));
    expect(outcome(ours)).toEqual(outcome(go));
    expect(ours.results[0]?.error).toBe(`plugins "31-second" and "30-first" both tried to set Annotations shared`);
  });

  test("a plugin taking an annotation over by removing it first: the same merge", async () => {
    const scenario: Scenario = {
      pods: [pod0],
      containers: [],
      steps: [step("CreateContainer", { pod: pod0, container: created })],
    };
    const { go, ours } = await both(scenario, [
      { index: "30", name: "first", modes: ["annotator"], flags: ["-shared"] },
      { index: "31", name: "second", modes: ["annotator"], flags: ["-takeover"] },
    ]);
    expectSame(go, ours);
    const response = readable(ours.results[0]!).response as CreateContainerResponse;
    expect(response.adjust?.annotations).toMatchObject({ "-shared": "", shared: "second" });
  });

  test("a plugin's own error: the same text", async () => {
    const broken = PodSandbox.fromPartial({
      ...pod0,
      annotations: { [`devices.noderesource.dev/container.${web.name}`]: "[{" },
    });
    const scenario: Scenario = {
      pods: [],
      containers: [],
      steps: [step("CreateContainer", { pod: broken, container: created })],
    };
    const { go, ours } = await both(scenario, [{ index: "10", name: "injector", modes: ["device-injector"] }]);
    expectSame(go, ours);
    expect(ours.results[0]?.error).toMatch(/^rpc error: code = Unknown desc = invalid device annotation "\[\{": /);
  });

  test("the default validator's required plugins and toleration: the same verdicts", async () => {
    const tolerant = PodSandbox.fromPartial({ ...pod0, id: "pod1", annotations: { "tolerate.example.com": "true" } });
    const scenario: Scenario = {
      pods: [],
      containers: [],
      defaultValidator: {
        enable: true,
        rejectOCIHookAdjustment: true,
        rejectRuntimeDefaultSeccompAdjustment: false,
        rejectUnconfinedSeccompAdjustment: false,
        rejectCustomSeccompAdjustment: false,
        rejectNamespaceAdjustment: false,
        rejectSysctlAdjustment: false,
        requiredPlugins: ["annotator", "missing"],
        tolerateMissingPluginsAnnotation: "tolerate.example.com",
      },
      steps: [
        step("CreateContainer", { pod: pod0, container: created }),
        step("CreateContainer", { pod: tolerant, container: { ...created, id: "ctr9" } }),
      ],
    };
    const { go, ours } = await both(scenario, [{ index: "30", name: "annotator", modes: ["annotator"] }]);
    expectSame(go, ours);
    expect(ours.results.map((r) => r.error)).toEqual([
      `validator "00-default-validator" rejected container adjustment, reason: validation error: required plugin "missing" not present`,
      "",
    ]);
  });
});

describeWithGo("@nri-ts/adaptation launching Go plugins", () => {
  test("a Go plugin in the plugin directory is launched, configured, and sees every event", async () => {
    const pluginPath = join(dir, "plugins");
    const configPath = join(dir, "conf.d");
    await mkdir(pluginPath);
    await mkdir(configPath);
    // launched, the plugin takes its mode from its name
    await symlink(pluginBin, join(pluginPath, "10-logger"));
    const log = join(dir, "logger.log");
    await writeFile(join(configPath, "logger.conf"), JSON.stringify({ log }));
    const adaptation = new Adaptation(
      "conformance",
      "v0.0.1",
      async (synchronize) => {
        await synchronize([pod0], [running, exited]);
      },
      async () => [],
      { socketPath: join(dir, "nri.sock"), pluginPath, pluginConfigPath: configPath },
    );
    await adaptation.start();
    try {
      expect(adaptation.plugins).toMatchObject([{ fullName: "10-logger", kind: "launched", events: 0x3fff }]);
      await adaptation.startContainer({ pod: pod0, container: exited });
    } finally {
      await adaptation.stop();
    }
    const events = (await readFile(log, "utf8"))
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events).toEqual([
      { plugin: "10-logger", event: "Configure", runtime: "conformance", version: "v0.0.1" },
      { plugin: "10-logger", event: "Synchronize", pods: 1, containers: ["ctr0", "ctr1"] },
      {
        plugin: "10-logger",
        event: "StartContainer",
        pod: "pod0",
        container: "ctr1",
        state: "CONTAINER_STOPPED",
        createdAt: 1_767_225_600_000_000_000,
        startedAt: 1_767_225_601_000_000_000,
        finishedAt: 1_767_225_700_000_000_000,
        exitCode: 137,
        statusReason: "OOMKilled",
        statusMessage: "killed: out of memory",
      },
    ]);
  });
});
