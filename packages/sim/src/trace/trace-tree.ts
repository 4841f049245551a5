/**
 * A step's trace as the report shows it: the spans of one trace as a tree
 * (each span under its parent, siblings in the order they started), with
 * the service that made each one (nri-sim, or the plugin whose process
 * did), its timing and what it says. Plain JSON.
 */
import { TraceAttribute } from "@nri-ts/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";

/** One span of a step's trace. */
export interface TraceSpan {
  name: string;
  /** Its id (16 hex digits), as a collector shows it. */
  spanId: string;
  /** The service that made it: `nri-sim`, or a plugin (`10-logger`) for spans of its own process. */
  service: string;
  /** `internal`, `server`, `client`, `producer` or `consumer`. */
  kind: string;
  /** When it started, in milliseconds after the trace's first span started. */
  startMs: number;
  durationMs: number;
  /** The error it ended with, when it failed. */
  error?: string;
  attributes: Record<string, unknown>;
  children: TraceSpan[];
}

/** The trace of one step. */
export interface TraceReport {
  traceId: string;
  spans: TraceSpan[];
}

const KINDS = ["internal", "server", "client", "producer", "consumer"];

const ms = ([seconds, nanos]: readonly [number, number]): number => seconds * 1e3 + nanos / 1e6;

/** Whether a span is a call of the Plugin service to (or in) one of `plugins`. */
function callTo(span: ReadableSpan, plugins: ReadonlySet<string>): boolean {
  const { attributes: a } = span;
  return (
    a["rpc.service"] === "nri.pkg.api.v1alpha1.Plugin" &&
    plugins.has(`${String(a[TraceAttribute.pluginIndex])}-${String(a[TraceAttribute.pluginName])}`)
  );
}

/**
 * The spans of one trace as a tree; a span whose parent is not among them
 * is a root. Calls to `hidden` plugins (the scenario's scripted ones, whose
 * events the report leaves out) are left out, with what is under them.
 */
export function traceTree(
  traceId: string,
  spans: readonly ReadableSpan[],
  hidden: ReadonlySet<string> = new Set(),
): TraceReport {
  const left = new Set<string>();
  // parents start before their children
  const sorted = [...spans]
    .sort((a, b) => ms(a.startTime) - ms(b.startTime))
    .filter((span) => {
      const parent = span.parentSpanContext?.spanId;
      if (callTo(span, hidden) || (parent !== undefined && left.has(parent))) left.add(span.spanContext().spanId);
      return !left.has(span.spanContext().spanId);
    });
  const origin = sorted.length > 0 ? ms(sorted[0].startTime) : 0;
  const nodes = new Map<string, TraceSpan>();
  for (const span of sorted) {
    nodes.set(span.spanContext().spanId, {
      name: span.name,
      spanId: span.spanContext().spanId,
      service: String(span.resource.attributes["service.name"] ?? ""),
      kind: KINDS[span.kind] ?? String(span.kind),
      startMs: round(ms(span.startTime) - origin),
      durationMs: round(ms(span.duration)),
      ...(span.status.code === 2 && { error: span.status.message ?? "" }),
      attributes: { ...span.attributes },
      children: [],
    });
  }
  const roots: TraceSpan[] = [];
  for (const span of sorted) {
    const node = nodes.get(span.spanContext().spanId)!;
    const parent = span.parentSpanContext && nodes.get(span.parentSpanContext.spanId);
    (parent ? parent.children : roots).push(node);
  }
  return { traceId, spans: roots };
}

/** Milliseconds to the microsecond. */
function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
