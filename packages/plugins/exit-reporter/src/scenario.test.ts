/**
 * The reporter under nri-sim, with all three outputs on: the scenario in
 * scenarios/exits.yaml (an OOM kill the runtime names, a missing command,
 * a clean exit, a SIGTERM) must come out the same in the JSON lines, in
 * /metrics parsed as Prometheus text, and in the gRPC stream as a real
 * nice-grpc client reads it.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { simulate } from "@nri-ts/sim";
import { createLogger } from "@nri-ts/stub";
import { Status } from "nice-grpc-common";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectExitReporter, type ExitReporterConnection } from "./client.js";
import { decodeConfig } from "./config.js";
import type { ExitRecord } from "./gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import { PrometheusOutput } from "./outputs/metrics.js";
import { createExitReporterPlugin } from "./plugin.js";
import { ExitReporter } from "./reporter.js";

const scenario = new URL("../scenarios/exits.yaml", import.meta.url).pathname;

/** What a user reads in each record: who, the code, reason and message with their sources, the explanation. */
function summary(record: Record<string, unknown>) {
  const { container, exitCode, signal, reason, reasonSource, message, messageSource, command, explanation } =
    record as Record<string, unknown> & { container: { name: string } };
  return {
    container: container.name,
    exitCode,
    signal,
    reason,
    reasonSource,
    message,
    messageSource,
    command,
    explanation,
  };
}

const EXPECTED = [
  {
    container: "nginx",
    exitCode: 137,
    signal: "SIGKILL",
    reason: "OOMKilled",
    reasonSource: "runtime",
    message: "memory limit of 64Mi exceeded",
    messageSource: "runtime",
    command: ["nginx", "-g", "daemon off;"],
    explanation:
      "killed by the out-of-memory killer (exit 137, SIGKILL), as the runtime reports: memory limit of 64Mi exceeded; ran for 1s",
  },
  {
    container: "migrate",
    exitCode: 127,
    reason: "Error",
    reasonSource: "runtime",
    message: "command not found",
    messageSource: "inferred",
    command: ["sh", "-c", "migrate-db --all"],
    explanation:
      "exited with code 127 (command not found): the container couldn't find the command migrate-db (the first of its script) in its PATH (the container sets none, so the shell's default); command: sh -c 'migrate-db --all'; ran for 1s",
  },
  {
    container: "warmup",
    exitCode: 0,
    reason: "Completed",
    reasonSource: "runtime",
    message: "success",
    messageSource: "inferred",
    command: ["sh", "-c", "echo warm"],
    explanation: "exited normally (code 0); ran for 1s",
  },
  {
    container: "sidecar",
    exitCode: 143,
    signal: "SIGTERM",
    reason: "Error",
    reasonSource: "runtime",
    message: "killed by signal 15 (SIGTERM)",
    messageSource: "inferred",
    command: ["httpd", "-f", "-p", "8080"],
    explanation:
      "killed by SIGTERM (exit 143): asked to terminate, as a runtime does when it stops a container; ran for 1s",
  },
];

describe("the exit reporter under nri-sim, all outputs on", () => {
  let dir: string;
  let reporter: ExitReporter;
  let connection: ExitReporterConnection;
  let report: Awaited<ReturnType<typeof simulate>>;
  const streamed: ExitRecord[] = [];
  let metricsText: string;
  let jsonLines: Record<string, unknown>[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "exit-reporter-sim-"));
    const config = decodeConfig(`
commandWrappers: ["tini --"]
jsonLines: {path: ${join(dir, "exits.jsonl")}}
prometheus: {listen: "127.0.0.1:0"}
grpc: {listen: unix://${join(dir, "exits.sock")}}
`);
    reporter = new ExitReporter();
    await reporter.configure(config);
    connection = connectExitReporter(`unix://${join(dir, "exits.sock")}`);
    const watching = new AbortController();
    const watcher = (async () => {
      for await (const { exit } of connection.client.watchExits({}, { signal: watching.signal })) {
        streamed.push(exit!);
        if (streamed.length === EXPECTED.length) watching.abort();
      }
    })().catch((error: Error) => {
      if (error.name !== "AbortError") throw error;
    });
    // The stream is open once the reporter counts its watcher.
    const grpc = reporter.activeOutputs.find((output) => output.name === "grpc") as unknown as {
      hub: { watchers: number };
    };
    while (grpc.hub.watchers === 0) await new Promise((resolve) => setTimeout(resolve, 10));

    report = await simulate(await readFile(scenario, "utf8"), {
      plugins: [{ plugin: createExitReporterPlugin(reporter, { config }), index: "90", name: "exit-reporter" }],
      clock: "virtual",
    });
    await watcher;
    const metrics = reporter.activeOutputs.find((output) => output instanceof PrometheusOutput) as PrometheusOutput;
    metricsText = await (await fetch(`http://127.0.0.1:${metrics.port}/metrics`)).text();
    await reporter.close();
    jsonLines = (await readFile(join(dir, "exits.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  });

  afterAll(async () => {
    connection?.close();
    await reporter?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("runs the scenario without the runtime dropping the reporter", () => {
    expect(report.ok, report.failures.join("\n")).toBe(true);
    expect(report.steps.flatMap((step) => step.closed)).toEqual([]);
  });

  it("writes one JSON line per exit, with the explanation and where each part came from", () => {
    expect(jsonLines.map(summary)).toEqual(EXPECTED);
    expect(jsonLines[0]).toMatchObject({
      sequence: 1,
      event: "StopContainer",
      pod: { namespace: "shop", name: "web" },
      container: { name: "nginx", image: "docker.io/library/nginx:1.27" },
      wrapper: ["/sbin/tini", "--"],
      createdAt: "2026-01-01T00:00:02.000000000Z",
      startedAt: "2026-01-01T00:00:03.000000000Z",
      finishedAt: "2026-01-01T00:00:04.000000000Z",
      runSeconds: 1,
    });
    // The runtime named the OOM kill: the cgroup is not asked.
    expect(jsonLines[0].oom).toBeUndefined();
  });

  it("streams the same exits to a nice-grpc watcher, in order", () => {
    expect(streamed.map((record) => record.container?.name)).toEqual(["nginx", "migrate", "warmup", "sidecar"]);
    expect(streamed.map((record) => record.explanation)).toEqual(EXPECTED.map((expected) => expected.explanation));
    expect(streamed.map((record) => Number(record.sequence))).toEqual([1, 2, 3, 4]);
  });

  it("counts them in /metrics, by namespace, reason, kind of code and signal", () => {
    const families = parsePrometheusTextFormat(metricsText);
    const exits = families.find((family) => family.name === "nri_container_exits_total");
    expect(exits?.type).toBe("COUNTER");
    const series = exits!.metrics.map((sample) => [sample.labels, Number(sample.value)]);
    expect(series).toEqual(
      expect.arrayContaining([
        [{ namespace: "shop", reason: "OOMKilled", code_class: "signal", signal: "SIGKILL" }, 1],
        [{ namespace: "shop", reason: "Error", code_class: "not-found", signal: "" }, 1],
        [{ namespace: "shop", reason: "Completed", code_class: "success", signal: "" }, 1],
        [{ namespace: "shop", reason: "Error", code_class: "signal", signal: "SIGTERM" }, 1],
      ]),
    );
    expect(series).toHaveLength(4);
    const run = families.find((family) => family.name === "nri_container_run_seconds");
    expect(run?.type).toBe("HISTOGRAM");
    // The parser folds labelled histograms together, so their samples are read as lines.
    for (const codeClass of ["signal", "not-found", "success"]) {
      expect(metricsText).toContain(
        `nri_container_run_seconds_bucket{le="1",namespace="shop",code_class="${codeClass}"} ${codeClass === "signal" ? 2 : 1}`,
      );
    }
    expect(metricsText).toContain('nri_container_run_seconds_count{namespace="shop",code_class="signal"} 2');
    // No container or pod ids in any label.
    expect(metricsText).not.toMatch(/[0-9a-f]{64}/);
  });
});

describe("the exit reporter under nri-sim, with outputs that fail", () => {
  // Enough exits to fill the stuck watcher's transport whatever Node.js buffers: since Node 22
  // (streams' high-water marks of 64 KiB), its HTTP/2 stream, socket and buffers take 40 to 50 of
  // these records (some 16 KiB each, their texts at the limits) before its queue starts to grow, and
  // 40 never dropped it; 100 fill it twice over.
  const CONTAINERS = 100;
  let dir: string;
  let reporter: ExitReporter;
  let connection: ExitReporterConnection;
  const logged: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "exit-reporter-sim-"));
  });

  afterAll(async () => {
    connection?.close();
    await reporter?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("never holds up the runtime's requests or the other outputs: a full disk, a watcher that stopped reading", async () => {
    const socket = join(dir, "exits.sock");
    const config = decodeConfig(`
jsonLines: {path: /dev/full}
prometheus: {listen: "127.0.0.1:0"}
grpc: {listen: unix://${socket}, subscriberBuffer: 2}
`);
    const logger = createLogger({
      stream: { write: (line: string) => logged.push((JSON.parse(line) as { msg: string }).msg) > 0 },
    });
    reporter = new ExitReporter({ logger });
    await reporter.configure(config);
    connection = connectExitReporter(`unix://${socket}`);
    // One watcher reads the first exit and then no more; the other reads them all.
    const stuck = connection.client.watchExits({})[Symbol.asyncIterator]();
    const first = stuck.next();
    const read: ExitRecord[] = [];
    const reading = (async () => {
      for await (const { exit } of connection.client.watchExits({})) {
        read.push(exit!);
        if (read.length === CONTAINERS) return;
      }
    })();
    const grpc = reporter.activeOutputs.find((output) => output.name === "grpc") as unknown as {
      hub: { watchers: number };
    };
    while (grpc.hub.watchers < 2) await new Promise((resolve) => setTimeout(resolve, 10));

    // Long command lines and messages make big records (each text at its limit), so that the
    // stuck watcher's transport fills up.
    const names = Array.from({ length: CONTAINERS }, (_, i) => `c${i}`);
    const report = await simulate(
      {
        runtime: { requestTimeout: "500ms" },
        pods: [{ name: "batch", namespace: "jobs" }],
        containers: names.map((name) => ({ name, pod: "batch", args: ["worker", "x".repeat(64 * 1024)] })),
        steps: [
          { "run-pod": "batch" },
          ...names.flatMap((name, i) => [
            { create: name },
            { start: name },
            { exit: { container: name, code: i % 3, reason: "Error", message: "m".repeat(4000) } },
          ]),
        ],
      },
      {
        plugins: [{ plugin: createExitReporterPlugin(reporter, { config }), index: "90", name: "exit-reporter" }],
        clock: "virtual",
      },
    );
    await reading;

    expect(report.ok, report.failures.join("\n")).toBe(true);
    expect(report.steps.flatMap((step) => step.closed)).toEqual([]);
    expect(report.steps.flatMap((step) => step.events).filter((event) => event.error)).toEqual([]);
    expect(read.map((record) => record.container?.name)).toEqual(names);
    const metrics = reporter.activeOutputs.find((output) => output instanceof PrometheusOutput) as PrometheusOutput;
    const exits = parsePrometheusTextFormat(
      await (await fetch(`http://127.0.0.1:${metrics.port}/metrics`)).text(),
    ).find((family) => family.name === "nri_container_exits_total");
    expect(exits!.metrics.reduce((sum, sample) => sum + Number(sample.value), 0)).toBe(CONTAINERS);
    expect(logged).toContain(
      "json-lines output lost 1 record: cannot write to /dev/full: ENOSPC: no space left on device, write",
    );
    expect(logged.filter((message) => message.startsWith("dropped gRPC watcher "))).toEqual([
      "dropped gRPC watcher #1 (unix socket): it fell 2 exits behind (the limit is 2)",
    ]);
    expect((await first).done).toBe(false);
    await expect(
      (async () => {
        for (let result = await stuck.next(); !result.done; result = await stuck.next());
      })(),
    ).rejects.toMatchObject({ code: Status.RESOURCE_EXHAUSTED });
  }, 60_000); // 100 lifecycles of big records: 1-5 s alone, over 20 s at load 40
});
