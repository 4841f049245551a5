/**
 * OpenTelemetry for ttrpc calls, free until an application registers an SDK.
 *
 * Libraries trace through `@opentelemetry/api` and leave the SDK to the
 * application. This module goes one step further: it does not even load the
 * API until a tracer provider is registered. Every copy of
 * `@opentelemetry/api` (major version 1) keeps what is registered in one
 * object on `globalThis`, under `Symbol.for("opentelemetry.js.api.1")`, so
 * that copies installed side by side share one SDK; {@link openTelemetry}
 * looks there (one property read) and answers undefined, with nothing
 * loaded, while no tracer provider is. Once one is, the API is imported (an
 * optional peer dependency: without it nothing is traced) and returned.
 *
 * Trace context travels in a call's metadata, written and read by the
 * application's propagator (W3C `traceparent` and `tracestate` with the
 * SDK's default one): {@link contextMetadata} and {@link contextOf}. Peers
 * that do not trace, Go's ttrpc among them, ignore metadata they do not know.
 * @module @nri-ts/ttrpc/tracing
 */
import type * as Api from "@opentelemetry/api";
import type { Metadata } from "nice-grpc-common";
import { CallMetadata } from "./call-metadata.js";

/** `@opentelemetry/api`, as {@link openTelemetry} gives it. */
export type OpenTelemetry = typeof Api;

/** Where copies of `@opentelemetry/api` 1.x keep what is registered (their shared global). */
const REGISTRY = Symbol.for("opentelemetry.js.api.1");

let api: OpenTelemetry | undefined;
let loading: Promise<OpenTelemetry | undefined> | undefined;

/** Whether a tracer provider is registered with OpenTelemetry's global API. */
export function tracerProviderRegistered(): boolean {
  const registry = (globalThis as { [REGISTRY]?: { trace?: unknown } })[REGISTRY];
  return registry?.trace !== undefined;
}

/**
 * The OpenTelemetry API while a tracer provider is registered and the API
 * is loaded; otherwise undefined (then, if a provider is registered, it
 * starts loading the API, for the calls after this one).
 */
export function openTelemetry(): OpenTelemetry | undefined {
  if (!tracerProviderRegistered()) return undefined;
  if (api === undefined) void loadOpenTelemetry();
  return api;
}

/**
 * Loads the OpenTelemetry API if a tracer provider is registered, so that
 * the next {@link openTelemetry} has it: call it where waiting is cheap
 * (connecting, starting). Resolves to the API, or undefined when no
 * provider is registered or `@opentelemetry/api` cannot be imported.
 */
export function loadOpenTelemetry(): Promise<OpenTelemetry | undefined> {
  if (!tracerProviderRegistered()) return Promise.resolve(undefined);
  loading ??= import("@opentelemetry/api").then(
    (module) => (api = module),
    () => undefined,
  );
  return loading;
}

const getter: Api.TextMapGetter<Metadata> = {
  get(carrier, key) {
    const value = carrier.get(key);
    return typeof value === "string" ? value : undefined;
  },
  keys(carrier) {
    return Array.from(carrier, ([key]) => key);
  },
};

const setter: Api.TextMapSetter<Metadata> = {
  set(carrier, key, value) {
    try {
      carrier.set(key, value);
    } catch {
      // a value Metadata refuses (not printable ASCII) is not sent
    }
  },
};

/**
 * Metadata that carries `context` to the peer, as the registered propagator
 * writes it (W3C `traceparent`, `tracestate`); undefined when it writes
 * nothing (no propagator, or no span in `context`). Values the metadata
 * cannot hold (not printable ASCII) are left out.
 */
export function contextMetadata(otel: OpenTelemetry, context: Api.Context): Metadata | undefined {
  const metadata = new CallMetadata();
  otel.propagation.inject(context, metadata, setter);
  for (const _ of metadata) return metadata;
  return undefined;
}

/**
 * The context a call's metadata carries (what the registered propagator
 * reads from it) on top of the root context: the caller's span, when it
 * sent one, as remote parent.
 */
export function contextOf(otel: OpenTelemetry, metadata: Metadata): Api.Context {
  return otel.propagation.extract(otel.ROOT_CONTEXT, metadata, getter);
}

/**
 * OpenTelemetry's RPC attributes of a ttrpc call: `rpc.system` `ttrpc`,
 * `rpc.service` (the full proto name, e.g. `nri.pkg.api.v1alpha1.Plugin`)
 * and `rpc.method` (e.g. `CreateContainer`).
 */
export function rpcAttributes(service: string, method: string): Api.Attributes {
  return { "rpc.system": "ttrpc", "rpc.service": service, "rpc.method": method };
}

/** The span name OpenTelemetry gives an RPC: `<service>/<method>`. */
export function rpcSpanName(service: string, method: string): string {
  return `${service}/${method}`;
}
