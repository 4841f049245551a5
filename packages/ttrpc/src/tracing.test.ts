import type { Metadata } from "nice-grpc-common";
import { afterEach, describe, expect, it } from "vitest";
import { socketPair, TestDefinition } from "./testing/support.js";
import { TraceRecorder } from "./testing/trace-recorder.js";
import { Channel } from "./channel.js";
import { createClient } from "./client.js";
import { createServer, type Server } from "./server.js";
import {
  contextMetadata,
  contextOf,
  loadOpenTelemetry,
  openTelemetry,
  rpcAttributes,
  rpcSpanName,
  tracerProviderRegistered,
} from "./tracing.js";

let recorder: TraceRecorder | undefined;
let server: Server | undefined;
afterEach(async () => {
  server?.forceShutdown();
  server = undefined;
  await recorder?.stop();
  recorder = undefined;
});

/** A client of a server whose Echo hands each call's metadata to `seen`. */
async function echoing(seen: (metadata: Metadata) => void) {
  server = createServer().add(TestDefinition, {
    echo: async (request, { metadata }) => {
      seen(metadata);
      return request;
    },
    fail: async (request) => request,
    metadata: async () => ({ list: [] }),
    collect: async () => ({ list: [] }),
    spread: async function* () {},
    chat: async function* () {},
  });
  const [client, end] = await socketPair();
  void server.serve(end);
  return createClient(TestDefinition, new Channel(client));
}

describe("without a tracer provider", () => {
  it("gives no API and loads none", async () => {
    expect(tracerProviderRegistered()).toBe(false);
    expect(openTelemetry()).toBeUndefined();
    expect(await loadOpenTelemetry()).toBeUndefined();
  });
});

describe("with a tracer provider registered", () => {
  it("gives the API, and none once the provider is gone", async () => {
    recorder = await TraceRecorder.start();
    const otel = openTelemetry();
    expect(otel?.trace.getTracer("t").startSpan("s").isRecording()).toBe(true);
    await recorder.stop();
    recorder = undefined;
    expect(openTelemetry()).toBeUndefined();
  });

  it("carries a span's context in a call's metadata to the server, as W3C traceparent and tracestate", async () => {
    recorder = await TraceRecorder.start();
    const otel = openTelemetry()!;
    let received: { traceparent: unknown; traceId?: string; spanId?: string; isRemote?: boolean } | undefined;
    const test = await echoing((metadata) => {
      const remote = otel.trace.getSpanContext(contextOf(otel, metadata));
      received = {
        traceparent: metadata.get("traceparent"),
        traceId: remote?.traceId,
        spanId: remote?.spanId,
        isRemote: remote?.isRemote,
      };
    });

    const span = otel.trace.getTracer("t").startSpan("caller");
    const state = otel.createTraceState("vendor=value");
    const sent = otel.trace.setSpanContext(otel.ROOT_CONTEXT, { ...span.spanContext(), traceState: state });
    const metadata = contextMetadata(otel, sent);
    expect(metadata?.get("tracestate")).toBe("vendor=value");
    await test.echo({ key: "k" }, { metadata });
    span.end();

    const { traceId, spanId } = span.spanContext();
    expect(received).toEqual({
      traceparent: `00-${traceId}-${spanId}-01`,
      traceId,
      spanId,
      isRemote: true,
    });
  });

  it("writes no metadata for a context without a span, and reads none from metadata without one", async () => {
    recorder = await TraceRecorder.start();
    const otel = openTelemetry()!;
    expect(contextMetadata(otel, otel.ROOT_CONTEXT)).toBeUndefined();
    let parent: unknown = "unset";
    const test = await echoing((metadata) => {
      parent = otel.trace.getSpanContext(contextOf(otel, metadata));
    });
    await test.echo({});
    expect(parent).toBeUndefined();
  });
});

describe("rpcAttributes", () => {
  it("names the call as OpenTelemetry's RPC conventions do", () => {
    expect(rpcAttributes("nri.pkg.api.v1alpha1.Plugin", "CreateContainer")).toEqual({
      "rpc.system": "ttrpc",
      "rpc.service": "nri.pkg.api.v1alpha1.Plugin",
      "rpc.method": "CreateContainer",
    });
    expect(rpcSpanName("nri.pkg.api.v1alpha1.Plugin", "CreateContainer")).toBe(
      "nri.pkg.api.v1alpha1.Plugin/CreateContainer",
    );
  });
});
