import { context, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { describe, expect, it } from "vitest";
import { readSpanLine, spanLine } from "./span-lines.js";

/** A span with a parent, an event, a link, a status and a trace state, as an SDK ends it. */
async function endedSpan(): Promise<ReadableSpan> {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": "10-logger" }),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const tracer = provider.getTracer("test", "1.0.0");
  const parent = tracer.startSpan("parent");
  const state = parent.spanContext();
  const span = tracer.startSpan(
    "child",
    { attributes: { "k8s.pod.name": "web", "nri.updates": 2, list: ["a", "b"] }, links: [{ context: state }] },
    trace.setSpan(context.active(), parent),
  );
  span.addEvent("exception", { "exception.message": "no" });
  span.setStatus({ code: 2, message: "no" });
  span.end();
  parent.end();
  await provider.forceFlush();
  return exporter.getFinishedSpans()[0];
}

describe("span lines", () => {
  it("carry a span whole, one line each", async () => {
    const span = await endedSpan();
    const line = spanLine(span);
    expect(line).not.toContain("\n");
    const read = readSpanLine(line)!;
    expect(read.spanContext()).toEqual(span.spanContext());
    expect(read.resource.attributes).toEqual(span.resource.attributes);
    const fields = (s: ReadableSpan) =>
      JSON.parse(
        JSON.stringify({
          name: s.name,
          kind: s.kind,
          parent: s.parentSpanContext,
          times: [s.startTime, s.endTime, s.duration],
          status: s.status,
          attributes: s.attributes,
          events: s.events,
          links: s.links,
          scope: s.instrumentationScope,
          dropped: [s.droppedAttributesCount, s.droppedEventsCount, s.droppedLinksCount],
          ended: s.ended,
        }),
      ) as unknown;
    expect(fields(read)).toEqual(fields(span));
    expect(read.parentSpanContext?.spanId).toBeDefined();
  });

  it("ignore lines that carry no span", () => {
    expect(readSpanLine("plain output")).toBeUndefined();
    expect(readSpanLine("\u0010nri-sim:span {not json")).toBeUndefined();
  });
});
