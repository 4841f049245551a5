/**
 * An OpenTelemetry SDK registered for a test, as an application would
 * register one: a tracer provider that keeps every ended span in memory,
 * AsyncLocalStorage for the active context and the W3C trace-context
 * propagator. The tests of ttrpc, stub, adaptation and conformance share it.
 */
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { loadOpenTelemetry } from "../tracing.js";

export type { ReadableSpan };

export class TraceRecorder {
  readonly #exporter = new InMemorySpanExporter();
  readonly #provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: this.#exporter })] });
  readonly #contextManager = new AsyncLocalStorageContextManager();

  /** Registers the SDK (nothing else may be registered) and loads the API for @nri-ts/ttrpc/tracing. */
  static async start(): Promise<TraceRecorder> {
    const recorder = new TraceRecorder();
    if (!trace.setGlobalTracerProvider(recorder.#provider)) throw new Error("a tracer provider is registered already");
    context.setGlobalContextManager(recorder.#contextManager.enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    await loadOpenTelemetry();
    return recorder;
  }

  /** The spans ended so far, in the order they ended. */
  get spans(): ReadableSpan[] {
    return this.#exporter.getFinishedSpans();
  }

  /** The ended spans named `name`. */
  named(name: string): ReadableSpan[] {
    return this.spans.filter((span) => span.name === name);
  }

  /** The span's parent among the ended spans, if it ended. */
  parentOf(span: ReadableSpan): ReadableSpan | undefined {
    const parentId = span.parentSpanContext?.spanId;
    return this.spans.find((candidate) => candidate.spanContext().spanId === parentId);
  }

  /** Forgets the spans ended so far. */
  reset(): void {
    this.#exporter.reset();
  }

  /** Unregisters everything: tracing is off again. */
  async stop(): Promise<void> {
    trace.disable();
    context.disable();
    propagation.disable();
    await this.#provider.shutdown();
  }
}
