import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { trace } from "@opentelemetry/api";
import { TracerProvider } from "@opentelemetry/sdk-trace";
import type { Plugin } from "@nri-ts/stub";
import { afterEach, describe, expect, it } from "vitest";
import { renderStep } from "../report/render-text.js";
import type { StepReport } from "../report/report.js";
import { SdkRegisteredError } from "../trace/sdk-registered-error.js";
import type { TraceSpan } from "../trace/trace-tree.js";
import { simulate } from "./simulate.js";

const fixtures = join(import.meta.dirname, "..", "fixtures");

const scenario = `
name: traced
pods: [{name: web, namespace: shop}]
containers: [{name: app, pod: web}]
steps:
  - run-pod: web
  - create: app
  - plugin-update: {update: [{container: app, resources: {cpu: {shares: 300}}}]}
  - remove-pod: web
`;

/** An in-process plugin that does work of its own, in a span of its own. */
const own: Plugin = {
  createContainer: () => {
    trace.getTracer("own").startSpan("look up quota").end();
    return { env: [{ key: "OWN", value: "1" }] };
  },
};

const plugins = [
  { module: join(fixtures, "annotate.ts"), index: "10", name: "annotate" },
  { plugin: own, index: "20", name: "own" },
];

/** The span's shape: name, service, children. */
function shape(span: TraceSpan): unknown {
  return { name: span.name, service: span.service, children: span.children.map(shape) };
}

function step(steps: StepReport[], text: string): StepReport {
  const found = steps.find((s) => s.step === text);
  if (!found) throw new Error(`no step ${text}`);
  return found;
}

describe("simulate with trace", () => {
  it("makes each step one trace: the runtime's requests, its calls to each plugin, each plugin's spans under them", async () => {
    const report = await simulate(scenario, { plugins, trace: true, clock: "virtual" });
    expect(report.failures).toEqual([]);
    const ids = report.steps.map((s) => s.trace?.traceId);
    expect(new Set(ids).size).toBe(report.steps.length);

    const create = step(report.steps, "create app").trace!;
    expect(create.spans.map(shape)).toEqual([
      {
        name: "create app",
        service: "nri-sim",
        children: [
          {
            name: "nri.CreateContainer",
            service: "nri-sim",
            children: [
              {
                name: "nri.pkg.api.v1alpha1.Plugin/CreateContainer",
                service: "nri-sim",
                // the plugin module's process sent its span
                children: [
                  { name: "nri.pkg.api.v1alpha1.Plugin/CreateContainer", service: "10-annotate", children: [] },
                ],
              },
              {
                name: "nri.pkg.api.v1alpha1.Plugin/CreateContainer",
                service: "nri-sim",
                children: [
                  {
                    name: "nri.pkg.api.v1alpha1.Plugin/CreateContainer",
                    service: "nri-sim",
                    children: [{ name: "look up quota", service: "nri-sim", children: [] }],
                  },
                ],
              },
            ],
          },
          { name: "nri.PostCreateContainer", service: "nri-sim", children: [] },
        ],
      },
    ]);
    const [root] = create.spans;
    expect(root.attributes).toEqual({
      "nri.sim.scenario": "traced",
      "nri.sim.step": 2,
      "nri.sim.step.text": "create app",
    });
    const [request] = root.children;
    expect(request.attributes).toMatchObject({
      "k8s.pod.name": "web",
      "k8s.namespace.name": "shop",
      "k8s.container.name": "app",
    });
    expect(request.children[0].attributes).toMatchObject({
      "rpc.system": "ttrpc",
      "rpc.method": "CreateContainer",
      "nri.plugin.index": "10",
      "nri.plugin.name": "annotate",
      "nri.adjusted": true,
    });

    // the scripted plugin's update comes over ttrpc too, its span in the step's trace
    const update = step(report.steps, "plugin-update 99-scenario").trace!;
    expect(update.spans.map(shape)).toEqual([
      {
        name: "plugin-update 99-scenario",
        service: "nri-sim",
        children: [
          {
            name: "nri.pkg.api.v1alpha1.Runtime/UpdateContainers",
            service: "nri-sim",
            children: [{ name: "nri.pkg.api.v1alpha1.Runtime/UpdateContainers", service: "nri-sim", children: [] }],
          },
        ],
      },
    ]);
    // the scripted plugin's own events are left out, as in the rest of the report
    const removal = JSON.stringify(step(report.steps, "remove-pod web").trace);
    expect(removal).not.toContain('"nri.plugin.name":"scenario"');
  });

  it("shows each step's trace as an indented timing tree", async () => {
    const report = await simulate(scenario, { plugins, trace: true, clock: "virtual" });
    const text = renderStep(step(report.steps, "create app"));
    const tree = text.slice(text.indexOf("     trace ")).split("\n");
    expect(tree[0]).toMatch(/^ {5}trace [0-9a-f]{32}$/);
    // each line: the span, indented under its parent, then how long it took
    const times = tree.slice(1).map((line) => line.replace(/\s+\d+(\.\d+)? m?s(?=\s|$)/, " <t>"));
    expect(times).toEqual([
      "       create app <t>",
      "         CreateContainer <t>",
      "           → 10-annotate CreateContainer <t>  adjusted",
      "             10-annotate handler <t>",
      "           → 20-own CreateContainer <t>  adjusted",
      "             20-own handler <t>",
      "               look up quota <t>",
      "         PostCreateContainer <t>",
    ]);
  });

  it("fails while another SDK is registered in the process", async () => {
    trace.setGlobalTracerProvider(new TracerProvider());
    try {
      await expect(simulate(scenario, { trace: true })).rejects.toThrow(SdkRegisteredError);
    } finally {
      trace.disable();
    }
  });
});

describe("simulate with otlp", () => {
  let collector: Server | undefined;
  afterEach(() => collector?.close());

  /** An OTLP/HTTP endpoint that keeps what it is sent (JSON, as the exporter sends it). */
  async function listen(): Promise<{ url: string; received: unknown[] }> {
    const received: unknown[] = [];
    collector = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        received.push({ path: request.url, body: JSON.parse(body) as unknown });
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => collector!.listen(0, "127.0.0.1", resolve));
    return { url: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`, received };
  }

  type Exported = {
    resourceSpans: Array<{
      resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
      scopeSpans: Array<{ spans: Array<{ traceId: string; name: string }> }>;
    }>;
  };

  it("exports every span, the plugin processes' too, to the collector", async () => {
    const { url, received } = await listen();
    const report = await simulate(scenario, { plugins, trace: true, otlp: url, clock: "virtual" });
    const spans = received.flatMap((post) => {
      const { path, body } = post as { path: string; body: Exported };
      expect(path).toBe("/v1/traces");
      return body.resourceSpans.flatMap((resource) => {
        const service = resource.resource.attributes.find((a) => a.key === "service.name")?.value.stringValue;
        return resource.scopeSpans.flatMap((scope) => scope.spans.map((span) => ({ service, ...span })));
      });
    });
    expect(report.otlp).toEqual({ url: `${url}/v1/traces`, spans: spans.length });
    for (const s of report.steps) {
      expect(spans.some((span) => span.traceId === s.trace?.traceId && span.name === s.step)).toBe(true);
    }
    const createTrace = step(report.steps, "create app").trace!.traceId;
    expect(spans.filter((span) => span.traceId === createTrace && span.service === "10-annotate")).toHaveLength(1);
  });

  // the exporter tries for up to 10 s before it gives up
  it("says when the collector cannot be reached, and the run goes on", { timeout: 60_000 }, async () => {
    const { url } = await listen();
    collector!.close();
    const report = await simulate(scenario, { plugins: [plugins[1]], otlp: url });
    expect(report.ok).toBe(true);
    expect(report.otlp).toMatchObject({ url: `${url}/v1/traces`, spans: 0, error: expect.any(String) });
    expect(report.steps[0].trace).toBeUndefined();
  });
});
