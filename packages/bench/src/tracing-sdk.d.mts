/** A registered SDK: how many spans it exported (dropped), and how to stop it. */
export interface RegisteredTracing {
  readonly exported: { spans: number };
  stop(): Promise<void>;
}

/** Registers an OpenTelemetry SDK whose spans are batched and dropped (see tracing-sdk.mjs). */
export function registerTracing(): RegisteredTracing;
