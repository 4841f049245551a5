/**
 * The plugin's side of NRI tracing. While the application has an
 * OpenTelemetry SDK registered, every request the runtime sends runs in a
 * span of its own: a child of the runtime's span when the request carries
 * trace context (our adaptation sends it; Go runtimes do not, yet), a root
 * span otherwise. The handler runs with that span in the active context, so
 * that what it does with instrumented libraries (HTTP calls, file reads)
 * nests under it. Without an SDK nothing of this runs (see
 * @nri-ts/ttrpc/tracing).
 */
import {
  answerAttributes,
  PluginDefinition,
  RuntimeDefinition,
  TraceAttribute,
  type TracedAnswer,
  type TracedRequest,
  traceAttributes,
} from "@nri-ts/api";
import type { ServiceImplementation } from "@nri-ts/ttrpc";
import type { Span } from "@opentelemetry/api";
import {
  contextMetadata,
  contextOf,
  type OpenTelemetry,
  openTelemetry,
  rpcAttributes,
  rpcSpanName,
} from "@nri-ts/ttrpc/tracing";
import type { CallContext, Metadata } from "nice-grpc-common";
import { messageOf } from "./errors.js";
import type { Identity } from "./identity.js";

/** The instrumentation scope of the stub's spans. */
const TRACER = "@nri-ts/stub";

type Method = (request: unknown, call: CallContext) => Promise<unknown>;
type Attributes = Record<string, string | number | boolean>;

/**
 * The Plugin service with a span around each method while tracing is on;
 * while it is off, each call costs one check more.
 */
export function tracedService(
  service: ServiceImplementation<PluginDefinition>,
  identity: Identity,
): ServiceImplementation<PluginDefinition> {
  const traced: Record<string, Method> = {};
  for (const [key, definition] of Object.entries(PluginDefinition.methods)) {
    const run = (service as unknown as Record<string, Method>)[key];
    const name = rpcSpanName(PluginDefinition.fullName, definition.name);
    const attributes: Attributes = {
      ...rpcAttributes(PluginDefinition.fullName, definition.name),
      [TraceAttribute.pluginName]: identity.name,
      [TraceAttribute.pluginIndex]: identity.index,
    };
    traced[key] = (request, call) => {
      const otel = openTelemetry();
      return otel === undefined ? run(request, call) : traceCall(otel, { key, name, attributes }, request, call, run);
    };
  }
  return traced as unknown as ServiceImplementation<PluginDefinition>;
}

async function traceCall(
  otel: OpenTelemetry,
  method: { key: string; name: string; attributes: Attributes },
  request: unknown,
  call: CallContext,
  run: Method,
): Promise<unknown> {
  const parent = contextOf(otel, call.metadata);
  const span = otel.trace.getTracer(TRACER).startSpan(
    method.name,
    {
      kind: otel.SpanKind.SERVER,
      attributes: { ...method.attributes, ...traceAttributes(request as TracedRequest) },
    },
    parent,
  );
  try {
    const answer = await otel.context.with(otel.trace.setSpan(parent, span), run, undefined, request, call);
    span.setAttributes(answerAttributes(method.key, answer as TracedAnswer));
    return answer;
  } catch (error) {
    failed(otel, span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Marks a span failed by `error`. */
function failed(otel: OpenTelemetry, span: Span, error: unknown): void {
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: otel.SpanStatusCode.ERROR, message: messageOf(error) });
}

/**
 * Runs a call to the Runtime service (UpdateContainers) in a client span,
 * a child of the active context (the handler's span, when a handler makes
 * it), handing `call` the metadata that carries it; without tracing, calls
 * it with none.
 */
export async function traceRuntimeCall<T>(
  method: keyof (typeof RuntimeDefinition)["methods"],
  identity: Identity,
  call: (metadata: Metadata | undefined) => Promise<T>,
): Promise<T> {
  const otel = openTelemetry();
  if (otel === undefined) return call(undefined);
  const { name } = RuntimeDefinition.methods[method];
  const span = otel.trace.getTracer(TRACER).startSpan(rpcSpanName(RuntimeDefinition.fullName, name), {
    kind: otel.SpanKind.CLIENT,
    attributes: {
      ...rpcAttributes(RuntimeDefinition.fullName, name),
      [TraceAttribute.pluginName]: identity.name,
      [TraceAttribute.pluginIndex]: identity.index,
    },
  });
  try {
    return await call(contextMetadata(otel, otel.trace.setSpan(otel.context.active(), span)));
  } catch (error) {
    failed(otel, span, error);
    throw error;
  } finally {
    span.end();
  }
}
