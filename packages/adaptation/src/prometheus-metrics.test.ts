import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type ContainerUpdate, Event, eventMask } from "@nri-ts/api";
import { ServerError, Status } from "nice-grpc-common";
import { Counter, Registry } from "prom-client";
import { afterEach, describe, expect, test } from "vitest";
import type { AdaptationOptions } from "./adaptation.js";
import { NRI_METRIC_NAMES, prometheusMetrics } from "./prometheus-metrics.js";
import { container, createRequest, pod, TestRuntime } from "./testing/runtime.js";

const INVOCATIONS = NRI_METRIC_NAMES.invocations;
const LATENCY = NRI_METRIC_NAMES.latency;
const ADJUSTMENTS = NRI_METRIC_NAMES.adjustments;
const ACTIVE = NRI_METRIC_NAMES.activePlugins;

/** Prometheus' default histogram buckets (client_golang's DefBuckets), which containerd's timer uses. */
const GO_DEFAULT_BUCKETS = ["0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"];

/** One sample line of the text exposition. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a text exposition (label order ignored: Go sorts labels, prom-client keeps its own order). */
function samples(exposition: string): Sample[] {
  const result: Sample[] = [];
  for (const line of exposition.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[name!] = value!;
    result.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return result;
}

type Series = Array<[labels: Record<string, string>, value: number]>;

/** Label sets with values, in a fixed order for comparison. */
function sorted(entries: Series): Series {
  return [...entries].sort(([a], [b]) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

/** The label sets and values of one metric's samples, sorted. */
function series(all: Sample[], name: string): Series {
  return sorted(all.filter((sample) => sample.name === name).map((sample) => [sample.labels, sample.value]));
}

function ok(plugin: string, operation: string): Record<string, string> {
  return { plugin, operation, status: "success", error: "" };
}

function failed(plugin: string, operation: string, error: string): Record<string, string> {
  return { plugin, operation, status: "error", error };
}

function update(containerId: string): ContainerUpdate {
  return {
    containerId,
    linux: {
      resources: { cpu: { shares: { value: 2n }, cpus: "", mems: "" }, hugepageLimits: [], unified: {}, devices: [] },
    },
    ignoreFailure: false,
  };
}

let runtime: TestRuntime | undefined;

afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

/** A started runtime counting into a fresh registry. */
async function start(options: AdaptationOptions = {}): Promise<{ runtime: TestRuntime; registry: Registry }> {
  const registry = new Registry();
  runtime = await TestRuntime.create({ requestTimeoutMs: 1000, ...options, metrics: prometheusMetrics(registry) });
  await runtime.adaptation.start();
  return { runtime, registry };
}

const pod0 = pod("pod0");
const ctr0 = container("ctr0", "pod0");

describe("prometheusMetrics under a real Adaptation", () => {
  test("counts registration, a CreateContainer with an adjustment and a plugin's error as containerd does", async () => {
    const { runtime, registry } = await start();
    await runtime.attach({
      index: "10",
      name: "adjuster",
      events: eventMask(Event.CREATE_CONTAINER, Event.VALIDATE_CONTAINER_ADJUSTMENT),
      handlers: { createContainer: async () => ({ adjust: { annotations: { owner: "adjuster" } } }) },
    });
    await runtime.attach({
      index: "20",
      name: "evictor",
      events: eventMask(Event.CREATE_CONTAINER, Event.START_CONTAINER),
      handlers: {
        createContainer: async () => ({
          update: [update("ctr9")],
          evict: [
            { containerId: "ctr8", reason: "" },
            { containerId: "ctr7", reason: "" },
          ],
        }),
        startContainer: async () => {
          throw new Error("boom");
        },
      },
    });

    const created = await runtime.adaptation.createContainer(createRequest("pod0", "ctr0"));
    expect(created.adjust?.annotations).toEqual({ owner: "adjuster" });
    await expect(runtime.adaptation.startContainer({ pod: pod0, container: ctr0 })).rejects.toThrow(
      "rpc error: code = Unknown desc = boom",
    );

    const exposition = await registry.metrics();
    expect(exposition).toContain(
      `# HELP ${INVOCATIONS} Number of NRI plugin invocations\n# TYPE ${INVOCATIONS} counter\n`,
    );
    expect(exposition).toContain(`# HELP ${LATENCY} NRI plugin operation latency\n# TYPE ${LATENCY} histogram\n`);
    expect(exposition).toContain(
      `# HELP ${ADJUSTMENTS} Number of adjustment operations from plugins\n# TYPE ${ADJUSTMENTS} counter\n`,
    );
    expect(exposition).toContain(
      `# HELP ${ACTIVE} Number of currently active NRI plugins\n# TYPE ${ACTIVE} gauge\n${ACTIVE} 2\n`,
    );

    const all = samples(exposition);
    const invoked: Series = [
      [ok("10-adjuster", "Synchronize"), 1],
      [ok("20-evictor", "Synchronize"), 1],
      [ok("10-adjuster", "CreateContainer"), 1],
      [ok("20-evictor", "CreateContainer"), 1],
      [ok("10-adjuster", "ValidateContainerAdjustment"), 1],
      [failed("20-evictor", "StartContainer", "unknown"), 1],
    ];
    expect(series(all, INVOCATIONS)).toEqual(sorted(invoked));
    // The adjustment itself counts nothing; updates and evictions count one each, by type.
    expect(series(all, ADJUSTMENTS)).toEqual([
      [{ plugin: "20-evictor", operation: "CreateContainer", type: "evict" }, 2],
      [{ plugin: "20-evictor", operation: "CreateContainer", type: "update" }, 1],
    ]);
    // One latency observation per invocation, failures included.
    const timed: Series = invoked.map(([{ plugin, operation }]) => [{ plugin: plugin!, operation: operation! }, 1]);
    expect(series(all, `${LATENCY}_count`)).toEqual(sorted(timed));
    const buckets = all.filter(
      (sample) =>
        sample.name === `${LATENCY}_bucket` &&
        sample.labels.plugin === "20-evictor" &&
        sample.labels.operation === "StartContainer",
    );
    expect(buckets.map((sample) => sample.labels.le)).toEqual(GO_DEFAULT_BUCKETS);
    expect(buckets.at(-1)?.value).toBe(1);
  });

  test("labels each kind of failure with containerd's error type", async () => {
    // A generous request timeout while the plugins connect and answer; a short one only
    // for the request the hanging plugin is to time out.
    const { runtime, registry } = await start({
      requestTimeoutMs: 60_000,
      builtinPlugins: [
        {
          index: "05",
          name: "inproc",
          handlers: {
            postStartContainer: () => {
              throw new Error("plain");
            },
            removeContainer: () => {
              throw new ServerError(Status.PERMISSION_DENIED, "not yours");
            },
          },
        },
      ],
    });
    await runtime.attach({
      index: "10",
      name: "refusing",
      events: eventMask(Event.STOP_CONTAINER),
      handlers: {
        stopContainer: async () => {
          throw new ServerError(Status.NOT_FOUND, "no such container");
        },
      },
    });
    await runtime.attach({
      index: "20",
      name: "hanging",
      events: eventMask(Event.START_CONTAINER),
      handlers: { startContainer: () => new Promise(() => {}) },
    });
    const crashing = await runtime.attach({
      index: "30",
      name: "crashing",
      events: eventMask(Event.UPDATE_POD_SANDBOX),
      handlers: {
        updatePodSandbox: () => {
          crashing.close();
          return new Promise(() => {});
        },
      },
    });

    const event = { pod: pod0, container: ctr0 };
    await expect(runtime.adaptation.stopContainer(event)).rejects.toThrow("no such container");
    await expect(runtime.adaptation.postStartContainer(event)).rejects.toThrow("plain");
    await expect(runtime.adaptation.removeContainer(event)).rejects.toThrow("not yours");
    // Local failures drop the plugin and the request goes on without it.
    runtime.adaptation.requestTimeoutMs = 300;
    await runtime.adaptation.startContainer(event);
    runtime.adaptation.requestTimeoutMs = 60_000;
    await runtime.adaptation.updatePodSandbox({
      pod: pod0,
      overheadLinuxResources: undefined,
      linuxResources: undefined,
    });
    expect(runtime.pluginNames).toEqual(["05-inproc", "10-refusing"]);

    const all = samples(await registry.metrics());
    const failures = series(all, INVOCATIONS).filter(([labels]) => labels.status === "error");
    expect(failures).toEqual(
      sorted([
        [failed("10-refusing", "StopContainer", "not_found"), 1],
        // a builtin plugin's plain error carries no status: Go's status.FromError fails on it
        [failed("05-inproc", "PostStartContainer", "other"), 1],
        [failed("05-inproc", "RemoveContainer", "permission_denied"), 1],
        [failed("20-hanging", "StartContainer", "deadline_exceeded"), 1],
        // ttrpc.ErrClosed is a plain error in Go too
        [failed("30-crashing", "UpdatePodSandbox", "other"), 1],
      ]),
    );
    expect(series(all, ACTIVE)).toEqual([[{}, 2]]);
  });

  test("counts a Synchronize refused as oversized as resource_exhausted, then each page", async () => {
    // One request timeout covers the whole paged exchange (5 MiB of pods): seconds on a busy machine.
    const { runtime, registry } = await start({ requestTimeoutMs: 60_000 });
    const bulky = "x".repeat(64 * 1024);
    runtime.pods = Array.from({ length: 80 }, (_, i) => pod(`pod${i}`, { annotations: { bulky } }));
    const plugin = await runtime.attach({ index: "10", name: "syncer", events: eventMask(Event.CREATE_CONTAINER) });
    const pages = plugin.requests("Synchronize").length;
    expect(pages).toBeGreaterThan(1);

    const all = samples(await registry.metrics());
    expect(series(all, INVOCATIONS)).toEqual(
      sorted([
        [failed("10-syncer", "Synchronize", "resource_exhausted"), 1],
        [ok("10-syncer", "Synchronize"), pages],
      ]),
    );
    expect(series(all, `${LATENCY}_count`)).toEqual([[{ plugin: "10-syncer", operation: "Synchronize" }, pages + 1]]);
  });
});

describe("prometheusMetrics", () => {
  test("shares the metrics already in a registry, as containerd's global ones are shared", async () => {
    const registry = new Registry();
    const first = prometheusMetrics(registry);
    const second = prometheusMetrics(registry);
    first.updatePluginCount(3);
    first.recordPluginAdjustments("10-a", "UpdateContainer", undefined, 2, 0);
    second.recordPluginAdjustments("10-a", "UpdateContainer", undefined, 1, 0);
    second.recordPluginAdjustments("10-a", "StopContainer", undefined, 0, 0);
    const all = samples(await registry.metrics());
    expect(series(all, ADJUSTMENTS)).toEqual([[{ plugin: "10-a", operation: "UpdateContainer", type: "update" }, 3]]);
    expect(series(all, ACTIVE)).toEqual([[{}, 3]]);
  });

  test("refuses a registry where one of its names is another kind of metric", () => {
    const registry = new Registry();
    new Counter({ name: ACTIVE, help: "a counter", registers: [registry] });
    expect(() => prometheusMetrics(registry)).toThrow(
      new TypeError(`metric ${ACTIVE} is already registered as another kind than Gauge`),
    );
  });

  test("records latency in seconds", async () => {
    const registry = new Registry();
    prometheusMetrics(registry).recordPluginLatency("10-a", "Synchronize", 500);
    const all = samples(await registry.metrics());
    expect(series(all, `${LATENCY}_sum`)).toEqual([[{ plugin: "10-a", operation: "Synchronize" }, 0.5]]);
    const buckets = all.filter((sample) => sample.name === `${LATENCY}_bucket`);
    expect(buckets.map((sample) => [sample.labels.le, sample.value])).toEqual(
      GO_DEFAULT_BUCKETS.map((le) => [le, le === "+Inf" || Number(le) >= 0.5 ? 1 : 0]),
    );
  });
});

// Each test starts Node processes with tsx: seconds each on a busy machine.
describe("the entry points", { timeout: 120_000 }, () => {
  const packageDir = fileURLToPath(new URL("..", import.meta.url));

  /** Imports a module in a fresh node process; true if prom-client got loaded. */
  async function loadsPromClient(specifier: string): Promise<boolean> {
    const script = [
      'import { createRequire } from "node:module";',
      `await import(${JSON.stringify(specifier)});`,
      'const loaded = Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes("/prom-client/"));',
      "process.stdout.write(String(loaded));",
    ].join("\n");
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--conditions=@nri-ts/source", "--input-type=module", "--eval", script],
      { cwd: packageDir },
    );
    return stdout === "true";
  }

  test('"@nri-ts/adaptation" never loads prom-client; "@nri-ts/adaptation/prometheus" does', async () => {
    expect(await loadsPromClient("@nri-ts/adaptation")).toBe(false);
    expect(await loadsPromClient("@nri-ts/adaptation/prometheus")).toBe(true);
  });
});
