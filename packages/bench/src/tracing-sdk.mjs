// An OpenTelemetry SDK as an application registers one (the set-up of the
// stub's and the adaptation's READMEs), for the benches that measure what
// tracing costs: a tracer provider whose spans are batched to an exporter
// that drops them (the cost of making, ending and batching spans, without a
// collector's), AsyncLocalStorage for the active context, the W3C
// trace-context propagator. Plain JavaScript: the benches' plugin processes
// run on plain Node.js.
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { ExportResultCode, W3CTraceContextPropagator } from "@opentelemetry/core";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";

/** Registers the SDK; `stop()` flushes it and unregisters everything. */
export function registerTracing() {
  const exported = { spans: 0 };
  const exporter = {
    export(spans, done) {
      exported.spans += spans.length;
      done({ code: ExportResultCode.SUCCESS });
    },
    async shutdown() {},
  };
  const provider = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter })] });
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return {
    exported,
    async stop() {
      await provider.forceFlush();
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
