/**
 * Finished spans across a process boundary: a plugin module's child process
 * (plugin-host) writes each span it ends as one line on its stdout, and the
 * simulator reads it back as a span of its own SDK, to show it in the
 * report's trace and to export it with its own. One line, JSON, after a
 * marker no log line starts with.
 */
import { createTraceState, type SpanContext } from "@opentelemetry/api";
import { resourceFromAttributes } from "@opentelemetry/resources";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { SPAN_MARK } from "../plugins/output-marks.js";

type WireContext = Omit<SpanContext, "traceState"> & { traceState?: string };

interface WireSpan {
  name: string;
  kind: ReadableSpan["kind"];
  context: WireContext;
  parent?: WireContext;
  startTime: ReadableSpan["startTime"];
  endTime: ReadableSpan["endTime"];
  duration: ReadableSpan["duration"];
  status: ReadableSpan["status"];
  attributes: ReadableSpan["attributes"];
  events: ReadableSpan["events"];
  links: Array<Omit<ReadableSpan["links"][number], "context"> & { context: WireContext }>;
  resource: ReadableSpan["resource"]["attributes"];
  scope: ReadableSpan["instrumentationScope"];
  dropped: [attributes: number, events: number, links: number];
}

function toWire(context: SpanContext): WireContext {
  const { traceState, ...rest } = context;
  return traceState ? { ...rest, traceState: traceState.serialize() } : rest;
}

function fromWire(context: WireContext): SpanContext {
  const { traceState, ...rest } = context;
  return traceState ? { ...rest, traceState: createTraceState(traceState) } : rest;
}

/** The line that carries `span` (without a newline). */
export function spanLine(span: ReadableSpan): string {
  const wire: WireSpan = {
    name: span.name,
    kind: span.kind,
    context: toWire(span.spanContext()),
    ...(span.parentSpanContext && { parent: toWire(span.parentSpanContext) }),
    startTime: span.startTime,
    endTime: span.endTime,
    duration: span.duration,
    status: span.status,
    attributes: span.attributes,
    events: span.events,
    links: span.links.map((link) => ({ ...link, context: toWire(link.context) })),
    resource: span.resource.attributes,
    scope: span.instrumentationScope,
    dropped: [span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount],
  };
  return `${SPAN_MARK}${JSON.stringify(wire)}`;
}

/** The span a line carries; undefined for a line that carries none (or a garbled one). */
export function readSpanLine(line: string): ReadableSpan | undefined {
  if (!line.startsWith(SPAN_MARK)) return undefined;
  let wire: WireSpan;
  try {
    wire = JSON.parse(line.slice(SPAN_MARK.length)) as WireSpan;
  } catch {
    return undefined;
  }
  const context = fromWire(wire.context);
  return {
    name: wire.name,
    kind: wire.kind,
    spanContext: () => context,
    ...(wire.parent && { parentSpanContext: fromWire(wire.parent) }),
    startTime: wire.startTime,
    endTime: wire.endTime,
    duration: wire.duration,
    status: wire.status,
    attributes: wire.attributes,
    events: wire.events,
    links: wire.links.map((link) => ({ ...link, context: fromWire(link.context) })),
    ended: true,
    resource: resourceFromAttributes(wire.resource),
    instrumentationScope: wire.scope,
    droppedAttributesCount: wire.dropped[0],
    droppedEventsCount: wire.dropped[1],
    droppedLinksCount: wire.dropped[2],
  };
}
