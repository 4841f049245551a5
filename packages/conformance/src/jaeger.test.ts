/*
 * Tracing end to end, into a real collector: Jaeger v2 (built from the Go
 * module proxy, see jaeger.ts) receives OTLP from an nri-sim run (`--trace
 * --otlp`, the CLI in a process of its own) with two plugin processes, our
 * ulimit-adjuster and device-injector; what Jaeger's query API gives back
 * must be the run's shape: one trace per step, the runtime's request under
 * the step, each call to a plugin under the request, and under each call the
 * plugin's own span from the plugin's process, with the attributes of
 * OpenTelemetry's conventions and NRI's. Skipped where Go is missing (Jaeger
 * is built with it); NRI_CONFORMANCE=required makes that a failure.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { SimReport, StepReport, TraceSpan } from "@nri-ts/sim";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWithGo, moduleDir } from "./go.js";
import { Jaeger, type JaegerSpan, type JaegerTrace, jaegerBinary } from "./jaeger.js";

const packages = join(moduleDir, "..");
const simCli = join(packages, "sim", "src", "cli.ts");
const ulimits = join(packages, "plugins", "ulimit-adjuster", "src", "index.ts");
const devices = join(packages, "plugins", "device-injector", "src", "index.ts");

const scenario = `
name: traced into jaeger
runtime: {requestTimeout: 2s, registrationTimeout: 60s}
plugins:
  20-device-injector: {failurePolicy: {keepConnected: true}}
pods:
  - name: web
    namespace: shop
    annotations:
      ulimits.noderesource.dev/container.app: '[{type: nofile, hard: 1024, soft: 512}]'
      devices.noderesource.dev/container.app: '[{path: /dev/nri-null, type: c, major: 1, minor: 3}]'
containers:
  - {name: app, pod: web}
  - {name: side, pod: web}
steps:
  - run-pod: web
  - create: app
  - create: side
    faults: {20-device-injector: {fault: timeout, on: CreateContainer}}
  - remove-pod: web
`;

let dir: string;
let jaeger: Jaeger | undefined;
let report: SimReport;

const tag = (span: JaegerSpan, key: string) => span.tags.find((t) => t.key === key)?.value;
const parentOf = (span: JaegerSpan) => span.references.find((r) => r.refType === "CHILD_OF")?.spanID;
const childrenOf = (trace: JaegerTrace, span: JaegerSpan) =>
  trace.spans.filter((s) => parentOf(s) === span.spanID).sort((a, b) => a.startTime - b.startTime);
const serviceOf = (trace: JaegerTrace, span: JaegerSpan) => trace.processes[span.processID]?.serviceName;
/** The ids of a report's spans, all of them. */
const spanIds = (spans: TraceSpan[]): string[] => spans.flatMap((span) => [span.spanId, ...spanIds(span.children)]);

/**
 * A step's trace as Jaeger has it, once it has every span the run's report
 * shows (Jaeger stores them in batches). It may have more: the span of a
 * plugin that answered after the step (a timeout) reaches it later.
 */
async function traceOf(step: StepReport): Promise<JaegerTrace> {
  const wanted = spanIds(step.trace!.spans);
  let trace: JaegerTrace | undefined;
  await expect
    .poll(async () => {
      trace = await jaeger!.trace(step.trace!.traceId);
      const have = new Set(trace?.spans.map((span) => span.spanID));
      return wanted.filter((id) => !have.has(id));
    })
    .toEqual([]);
  return trace!;
}

describeWithGo("an nri-sim run's traces in Jaeger", () => {
  beforeAll(async () => {
    // a cold build of Jaeger takes minutes; CI starts it at the beginning of the run
    const binary = await jaegerBinary();
    dir = await mkdtemp(join(tmpdir(), "nri-jaeger-"));
    jaeger = await Jaeger.start(binary, dir);
    const file = join(dir, "scenario.yaml");
    await writeFile(file, scenario);
    const validator = join(dir, "validator.yaml");
    await writeFile(validator, "rejectOCIHookAdjustment: true\n");
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        "--conditions=@nri-ts/source",
        "--import",
        "tsx",
        simCli,
        "run",
        file,
        "--plugin",
        `10-ulimit-adjuster=${ulimits}`,
        "--plugin",
        `20-device-injector=${devices}`,
        "--validator-config",
        validator,
        "--trace",
        "--otlp",
        jaeger.otlpUrl,
        "--json",
      ],
      { maxBuffer: 64 << 20 },
    );
    report = JSON.parse(stdout) as SimReport;
  }, 3_600_000);

  afterAll(async () => {
    await jaeger?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("holds one trace per step, each with the spans of the run's report", async () => {
    expect(report.failures).toEqual([]);
    expect(report.otlp?.error).toBeUndefined();
    const ids = report.steps.map((step) => step.trace!.traceId);
    expect(new Set(ids).size).toBe(report.steps.length);
    for (const step of report.steps) {
      const trace = await traceOf(step);
      expect(trace.spans.length).toBeLessThanOrEqual(spanIds(step.trace!.spans).length + 1);
      const roots = trace.spans.filter((span) => parentOf(span) === undefined);
      expect(roots.map((span) => [span.operationName, serviceOf(trace, span)])).toEqual([[step.step, "nri-sim"]]);
      expect(tag(roots[0], "nri.sim.step")).toBe(step.number);
    }
    expect(await jaeger!.services()).toEqual(
      expect.arrayContaining(["nri-sim", "10-ulimit-adjuster", "20-device-injector"]),
    );
  });

  it("puts each plugin's own span under the runtime's call to it, with the conventions' attributes and NRI's", async () => {
    const step = report.steps.find((s) => s.step === "create app")!;
    const trace = await traceOf(step);
    const [root] = trace.spans.filter((span) => parentOf(span) === undefined);
    const [request, post] = childrenOf(trace, root);
    expect([request.operationName, post.operationName]).toEqual(["nri.CreateContainer", "nri.PostCreateContainer"]);
    expect(
      Object.fromEntries(["k8s.pod.name", "k8s.namespace.name", "k8s.container.name"].map((k) => [k, tag(request, k)])),
    ).toEqual({
      "k8s.pod.name": "web",
      "k8s.namespace.name": "shop",
      "k8s.container.name": "app",
    });
    expect(tag(request, "container.id")).toMatch(/^[0-9a-f]{64}$/);

    const calls = childrenOf(trace, request);
    expect(
      calls.map((call) => [call.operationName, tag(call, "nri.plugin.index"), tag(call, "nri.plugin.name")]),
    ).toEqual([
      ["nri.pkg.api.v1alpha1.Plugin/CreateContainer", "10", "ulimit-adjuster"],
      ["nri.pkg.api.v1alpha1.Plugin/CreateContainer", "20", "device-injector"],
      ["nri.pkg.api.v1alpha1.Plugin/ValidateContainerAdjustment", "00", "default-validator"],
    ]);
    for (const call of calls.slice(0, 2)) {
      expect(serviceOf(trace, call)).toBe("nri-sim");
      expect([
        tag(call, "span.kind"),
        tag(call, "rpc.system"),
        tag(call, "rpc.service"),
        tag(call, "rpc.method"),
      ]).toEqual(["client", "ttrpc", "nri.pkg.api.v1alpha1.Plugin", "CreateContainer"]);
      expect(tag(call, "nri.adjusted")).toBe(true);
      const served = childrenOf(trace, call);
      expect(served.map((span) => [span.operationName, serviceOf(trace, span), tag(span, "span.kind")])).toEqual([
        [
          "nri.pkg.api.v1alpha1.Plugin/CreateContainer",
          `${tag(call, "nri.plugin.index")}-${tag(call, "nri.plugin.name")}`,
          "server",
        ],
      ]);
      expect(tag(served[0], "k8s.pod.name")).toBe("web");
    }
    expect(tag(calls[2], "nri.validation.verdict")).toBe("accepted");
  });

  it("shows a plugin's failure with what its failure policy decided", async () => {
    const step = report.steps.find((s) => s.step === "create side")!;
    const trace = await traceOf(step);
    const [failed] = trace.spans.filter(
      (span) => tag(span, "nri.plugin.name") === "device-injector" && tag(span, "span.kind") === "client",
    );
    expect(tag(failed, "otel.status_code")).toBe("ERROR");
    expect(tag(failed, "otel.status_description")).toBe("context deadline exceeded");
    expect(tag(failed, "error")).toBe(true);
    expect(tag(failed, "nri.failure")).toBe("deadline");
    expect(tag(failed, "nri.failure_policy")).toBe("keepConnected");
    expect(tag(failed, "nri.failure_policy.decision")).toBe("request went on, plugin kept");
  });
});
