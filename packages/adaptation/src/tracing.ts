/**
 * The runtime's side of NRI tracing. While the application (the runtime
 * embedding the adaptation) has an OpenTelemetry SDK registered, each
 * request (CreateContainer, UpdateContainer, Synchronize, ...) runs in a
 * span, a child of the caller's active context, and each call to a plugin in
 * a child of that span, whose context travels to the plugin in the ttrpc
 * request's metadata (W3C trace context with the SDK's default propagator).
 * Without an SDK none of this runs: `RequestTrace.start` answers undefined
 * after one check (see @nri-ts/ttrpc/tracing).
 */
import {
  answerAttributes,
  type FailurePolicy,
  PluginDefinition,
  RuntimeDefinition,
  TraceAttribute,
  type TracedAnswer,
  type TracedRequest,
  traceAttributes,
} from "@nri-ts/api";
import {
  contextMetadata,
  contextOf,
  type OpenTelemetry,
  openTelemetry,
  rpcAttributes,
  rpcSpanName,
} from "@nri-ts/ttrpc/tracing";
import type { Context, Span } from "@opentelemetry/api";
import type { Metadata } from "nice-grpc-common";
import { errorText } from "./error-text.js";
import { fieldName } from "./merge/fields.js";
import { ConflictError } from "./merge/owners.js";
import type { LocalFailure } from "./transport/plugin-transport.js";

/** The instrumentation scope of the adaptation's spans. */
const TRACER = "@nri-ts/adaptation";

type Attributes = Record<string, string | number | boolean | string[]>;

/** A plugin as its spans name it. */
export interface TracedPlugin {
  readonly index: string;
  readonly name: string;
  /** `launched`, `external`, `builtin` or `wasm`: only the first two are called over ttrpc. */
  readonly kind: string;
}

function pluginAttributes(plugin: TracedPlugin): Attributes {
  return {
    [TraceAttribute.pluginName]: plugin.name,
    [TraceAttribute.pluginIndex]: plugin.index,
    [TraceAttribute.pluginKind]: plugin.kind,
  };
}

/** Marks a span failed by `error`. */
function fail(otel: OpenTelemetry, span: Span, error: unknown): void {
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: otel.SpanStatusCode.ERROR, message: errorText(error) });
}

function over(plugin: TracedPlugin): boolean {
  return plugin.kind === "external" || plugin.kind === "launched";
}

/** A policy as the spans say it: `failRequest, keepConnected`, one of them, or `none`. */
export function policyText(policy: FailurePolicy | undefined): string {
  const set = [policy?.failRequest && "failRequest", policy?.keepConnected && "keepConnected"].filter(Boolean);
  return set.length > 0 ? set.join(", ") : "none";
}

/** One request of the runtime to its plugins, in a span. */
export class RequestTrace {
  readonly #otel: OpenTelemetry;
  readonly #span: Span;
  readonly #context: Context;

  private constructor(otel: OpenTelemetry, operation: string, request: TracedRequest) {
    this.#otel = otel;
    const parent = otel.context.active();
    this.#span = otel.trace
      .getTracer(TRACER)
      .startSpan(`nri.${operation}`, { kind: otel.SpanKind.INTERNAL, attributes: traceAttributes(request) }, parent);
    this.#context = otel.trace.setSpan(parent, this.#span);
  }

  /** A span for `operation` (e.g. `CreateContainer`), a child of the active context; undefined while tracing is off. */
  static start(operation: string, request: TracedRequest): RequestTrace | undefined {
    const otel = openTelemetry();
    return otel === undefined ? undefined : new RequestTrace(otel, operation, request);
  }

  /** A call to `plugin`'s method (its proto name, e.g. `CreateContainer`), in a child span. */
  call(plugin: TracedPlugin, method: string): CallTrace {
    return new CallTrace(this.#otel, this.#context, plugin, method);
  }

  /**
   * The request is over; an error fails the span. A conflict names both
   * plugins (`nri.conflict.plugins`: the one that set the field first, then
   * the one whose claim failed) and the field.
   */
  end(error?: unknown): void {
    if (error !== undefined) {
      fail(this.#otel, this.#span, error);
      if (error instanceof ConflictError) {
        this.#span.setAttributes({
          [TraceAttribute.conflictPlugins]: [error.other, error.plugin],
          [TraceAttribute.conflictField]:
            error.key === undefined ? fieldName(error.field) : `${fieldName(error.field)} ${error.key}`,
        });
      }
    }
    this.#span.end();
  }

  /** Runs `body` in a span for `operation`, ended with its outcome; without tracing, just runs it. */
  static async run<T>(
    operation: string,
    request: TracedRequest,
    body: (trace: RequestTrace | undefined) => Promise<T>,
  ): Promise<T> {
    const trace = RequestTrace.start(operation, request);
    if (trace === undefined) return body(undefined);
    try {
      const result = await body(trace);
      trace.end();
      return result;
    } catch (error) {
      trace.end(error);
      throw error;
    }
  }
}

/** One call to a plugin, in a span: a client span over ttrpc, an internal one in-process. */
export class CallTrace {
  readonly #otel: OpenTelemetry;
  readonly #span: Span;
  readonly #context: Context;
  readonly #ttrpc: boolean;
  #metadata: Metadata | undefined | null = null;

  constructor(otel: OpenTelemetry, parent: Context, plugin: TracedPlugin, method: string) {
    this.#otel = otel;
    this.#ttrpc = over(plugin);
    const rpc = rpcAttributes(PluginDefinition.fullName, method) as Attributes;
    if (!this.#ttrpc) delete rpc["rpc.system"];
    this.#span = otel.trace.getTracer(TRACER).startSpan(
      rpcSpanName(PluginDefinition.fullName, method),
      {
        kind: this.#ttrpc ? otel.SpanKind.CLIENT : otel.SpanKind.INTERNAL,
        attributes: { ...rpc, ...pluginAttributes(plugin) },
      },
      parent,
    );
    this.#context = otel.trace.setSpan(parent, this.#span);
  }

  /** The metadata that carries this call's context to the plugin (made once). */
  get metadata(): Metadata | undefined {
    if (this.#metadata === null) this.#metadata = contextMetadata(this.#otel, this.#context);
    return this.#metadata;
  }

  /** Runs `body` (an in-process plugin's handler) with this call's span active. */
  enter<T>(body: () => T): T {
    return this.#otel.context.with(this.#context, body);
  }

  /** The call went to another method (StateChange, for a plugin that does not implement the event's). */
  redirected(method: string): void {
    this.#span.setAttribute("rpc.method", method);
  }

  /** The plugin answered `method` (its key, e.g. `createContainer`) with `answer`. */
  answered(method: string, answer: unknown): void {
    this.#span.setAttributes(answerAttributes(method, answer as TracedAnswer));
  }

  /** The call failed: the plugin's error, or a failure on this side (`local`). */
  failed(error: unknown, local: LocalFailure | undefined): void {
    fail(this.#otel, this.#span, error);
    if (local !== undefined) this.#span.setAttribute(TraceAttribute.failure, local);
  }

  /** What the plugin's failure policy decided about a failure. */
  decided(policy: FailurePolicy | undefined, dropped: boolean, requestFailed: boolean): void {
    this.#span.setAttributes({
      [TraceAttribute.failurePolicy]: policyText(policy),
      [TraceAttribute.failureDecision]: `${requestFailed ? "request failed" : "request went on"}, plugin ${dropped ? "dropped" : "kept"}`,
      [TraceAttribute.pluginDropped]: dropped,
      [TraceAttribute.requestFailed]: requestFailed,
    });
  }

  end(): void {
    this.#span.end();
  }
}

/**
 * Runs a plugin's unsolicited UpdateContainers in a server span, a child of
 * the span the plugin sent it from (when its stub traces), with the runtime's
 * handling in its context; without tracing, just runs it.
 */
export async function traceUpdateContainers<T extends { length: number }>(
  plugin: TracedPlugin,
  metadata: Metadata | undefined,
  updates: number,
  handle: () => Promise<T>,
): Promise<T> {
  const otel = openTelemetry();
  if (otel === undefined) return handle();
  const { name } = RuntimeDefinition.methods.updateContainers;
  const parent = metadata === undefined ? otel.ROOT_CONTEXT : contextOf(otel, metadata);
  const span = otel.trace.getTracer(TRACER).startSpan(
    rpcSpanName(RuntimeDefinition.fullName, name),
    {
      kind: otel.SpanKind.SERVER,
      attributes: {
        ...rpcAttributes(RuntimeDefinition.fullName, name),
        ...pluginAttributes(plugin),
        [TraceAttribute.updates]: updates,
      },
    },
    parent,
  );
  try {
    const failed = await otel.context.with(otel.trace.setSpan(parent, span), handle);
    span.setAttribute(TraceAttribute.updatesFailed, failed.length);
    return failed;
  } catch (error) {
    fail(otel, span, error);
    throw error;
  } finally {
    span.end();
  }
}
