import { trace } from "@opentelemetry/api";
import { Metadata } from "nice-grpc-common";
import { afterEach, describe, expect, it } from "vitest";
import { TraceRecorder } from "../../ttrpc/src/testing/trace-recorder.js";
import type { Plugin } from "./plugin.js";
import type { Stub } from "./stub.js";
import { connectPlugin } from "./harness/connect-plugin.js";

const PLUGIN_SERVICE = "nri.pkg.api.v1alpha1.Plugin";
const request = {
  pod: { id: "sandbox-1", name: "web", uid: "uid-1", namespace: "shop" },
  container: { id: "ctr-1", podSandboxId: "sandbox-1", name: "nginx" },
};

let recorder: TraceRecorder | undefined;
let stub: Stub | undefined;
afterEach(async () => {
  await stub?.stop();
  stub = undefined;
  await recorder?.stop();
  recorder = undefined;
});

async function traced(plugin: Plugin) {
  recorder = await TraceRecorder.start();
  const connected = await connectPlugin(plugin, { stub: { index: "42", name: "traced" } });
  stub = connected.stub;
  recorder.reset(); // the handshake's spans
  return { recorder, runtime: connected.runtime };
}

describe("with an OpenTelemetry SDK registered", () => {
  it("runs each handler in a span of its own, a root span when the runtime sends no trace context", async () => {
    let active: string | undefined;
    const { recorder, runtime } = await traced({
      createContainer: () => {
        active = trace.getActiveSpan()?.spanContext().spanId;
        trace.getTracer("the plugin's own").startSpan("read config").end();
        return { env: [{ key: "A", value: "1" }] };
      },
    });
    await runtime.plugin.createContainer(request);

    const [span] = recorder.named(`${PLUGIN_SERVICE}/CreateContainer`);
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.kind).toBe(1); // SERVER
    expect(span.attributes).toEqual({
      "rpc.system": "ttrpc",
      "rpc.service": PLUGIN_SERVICE,
      "rpc.method": "CreateContainer",
      "nri.plugin.name": "traced",
      "nri.plugin.index": "42",
      "k8s.pod.name": "web",
      "k8s.pod.uid": "uid-1",
      "k8s.namespace.name": "shop",
      "k8s.container.name": "nginx",
      "container.id": "ctr-1",
      "nri.adjusted": true,
      "nri.updates": 0,
      "nri.evictions": 0,
    });
    // the handler's own work nests under the stub's span
    expect(active).toBe(span.spanContext().spanId);
    const [own] = recorder.named("read config");
    expect(own.parentSpanContext?.spanId).toBe(span.spanContext().spanId);
    expect(own.spanContext().traceId).toBe(span.spanContext().traceId);
  });

  it("makes the span a child of the runtime's when the request carries W3C trace context", async () => {
    const { recorder, runtime } = await traced({ startContainer: () => {} });
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const parentId = "00f067aa0ba902b7";
    const metadata = Metadata().set("traceparent", `00-${traceId}-${parentId}-01`);
    await runtime.plugin.startContainer(request, { metadata });

    const [span] = recorder.named(`${PLUGIN_SERVICE}/StartContainer`);
    expect(span.spanContext().traceId).toBe(traceId);
    expect(span.parentSpanContext).toMatchObject({ spanId: parentId, isRemote: true });
  });

  it("sets the span's status when the handler fails, and records the error", async () => {
    const { recorder, runtime } = await traced({
      stopContainer: () => {
        throw new Error("disk full");
      },
    });
    await expect(runtime.plugin.stopContainer(request)).rejects.toThrow("disk full");

    const [span] = recorder.named(`${PLUGIN_SERVICE}/StopContainer`);
    expect(span.status).toEqual({ code: 2, message: "disk full" }); // ERROR
    expect(span.events.map((event) => [event.name, event.attributes?.["exception.message"]])).toEqual([
      ["exception", "disk full"],
    ]);
  });

  it("records a validator's verdict", async () => {
    const { recorder, runtime } = await traced({
      validateContainerAdjustment: () => {
        throw new Error("no hooks here");
      },
    });
    await runtime.plugin.validateContainerAdjustment(request);

    const [span] = recorder.named(`${PLUGIN_SERVICE}/ValidateContainerAdjustment`);
    expect(span.attributes).toMatchObject({
      "nri.validation.verdict": "rejected",
      "nri.validation.reason": "no hooks here",
    });
    expect(span.status.code).toBe(0); // a verdict, not a failure
  });

  it("counts what a Synchronize carried", async () => {
    const { recorder, runtime } = await traced({ synchronize: () => [], startContainer: () => {} });
    await runtime.plugin.synchronize({ pods: [request.pod], containers: [request.container] });

    const [span] = recorder.named(`${PLUGIN_SERVICE}/Synchronize`);
    expect(span.attributes).toMatchObject({ "nri.pods": 1, "nri.containers": 1, "nri.adjusted": false });
  });

  it("calls UpdateContainers in a client span under the handler's", async () => {
    const { recorder, runtime } = await traced({
      postStartContainer: async (_pod, _container, { stub }) => {
        await stub.updateContainers([
          { containerId: "other", linux: { resources: { cpu: { shares: { value: 512n } } } } },
        ]);
      },
    });
    await runtime.plugin.postStartContainer(request);

    const [handler] = recorder.named(`${PLUGIN_SERVICE}/PostStartContainer`);
    const [client] = recorder.named("nri.pkg.api.v1alpha1.Runtime/UpdateContainers");
    expect(client.kind).toBe(2); // CLIENT
    expect(client.parentSpanContext?.spanId).toBe(handler.spanContext().spanId);
    expect(client.attributes).toMatchObject({ "rpc.method": "UpdateContainers", "nri.plugin.name": "traced" });
    expect(runtime.updateRequests).toHaveLength(1);
  });
});

describe("without an SDK", () => {
  it("runs handlers with no span active", async () => {
    let active: unknown = "unset";
    const connected = await connectPlugin({
      createContainer: () => {
        active = trace.getActiveSpan();
      },
    });
    stub = connected.stub;
    await connected.runtime.plugin.createContainer(request);
    expect(active).toBeUndefined();
  });
});
