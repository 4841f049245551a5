/**
 * The OpenTelemetry SDK nri-sim registers when asked to trace, in its own
 * process and in the processes that run plugin modules: a tracer provider
 * with the given span processors, AsyncLocalStorage for the active context
 * (so that spans nest across awaits) and the W3C trace-context propagator
 * (what the runtime sends the plugins in ttrpc metadata). nri-sim is an
 * application: the SDK is its to register; its libraries only use the API.
 */
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { type SpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { loadOpenTelemetry } from "@nri-ts/ttrpc/tracing";
import { SdkRegisteredError } from "./sdk-registered-error.js";

/** An SDK registered by {@link registerSdk}. */
export interface RegisteredSdk {
  /**
   * Flushes the processors, then unregisters everything. A failed export
   * does not make it fail: an exporter that matters says so itself (see
   * sim-tracing.ts).
   */
  shutdown(): Promise<void>;
}

/**
 * Registers an SDK whose spans come from service `service` (the resource's
 * `service.name`) and go to `processors`; resolves once @nri-ts/adaptation
 * and @nri-ts/stub trace from their next request on.
 * @throws SdkRegisteredError when a tracer provider is registered already
 */
export async function registerSdk(service: string, processors: SpanProcessor[]): Promise<RegisteredSdk> {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": service }),
    spanProcessors: processors,
  });
  if (!trace.setGlobalTracerProvider(provider)) {
    throw new SdkRegisteredError("an OpenTelemetry tracer provider is registered already");
  }
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  await loadOpenTelemetry();
  return {
    async shutdown() {
      try {
        await provider.forceFlush().catch(() => {});
        await provider.shutdown().catch(() => {});
      } finally {
        trace.disable();
        context.disable();
        propagation.disable();
      }
    },
  };
}
