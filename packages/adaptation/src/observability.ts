import type { ContainerAdjustment } from "@nri-ts/api";

// Where the adaptation logs (plugin connections, registrations, closings, and
// the errors it survives) is a Logger of @nri-ts/common, the one @nri-ts/stub
// takes too: pino's contract, the fields first (plugin name, operation, `err`),
// `logger.info({ plugin: "10-name" }, "message")`. A pino logger fits as it is;
// the default, silentLogger, drops everything.
export { type Logger, silentLogger } from "@nri-ts/common";

/**
 * What the adaptation counts, as the Go reference counts it: every relayed
 * request (with its error and latency), the adjustments, updates and
 * evictions each plugin asks for, and the number of active plugins. Wire it
 * to prom-client, OpenTelemetry or anything else; the methods are called
 * synchronously and must not throw.
 */
export interface Metrics {
  /** A plugin handled (or failed) an operation, e.g. `CreateContainer`. */
  recordPluginInvocation(plugin: string, operation: string, error: Error | undefined): void;
  /** How long the plugin took, in milliseconds. */
  recordPluginLatency(plugin: string, operation: string, milliseconds: number): void;
  /** What a plugin asked for in a CreateContainer, UpdateContainer, StopContainer or Synchronize reply. */
  recordPluginAdjustments(
    plugin: string,
    operation: string,
    adjust: ContainerAdjustment | undefined,
    updates: number,
    evictions: number,
  ): void;
  /** The number of active plugins changed (or was recounted). */
  updatePluginCount(count: number): void;
}

/** Metrics that count nothing: the default. */
export const noMetrics: Metrics = {
  recordPluginInvocation() {},
  recordPluginLatency() {},
  recordPluginAdjustments() {},
  updatePluginCount() {},
};

/** The deprecated features the adaptation reports. */
export enum Deprecation {
  /** The plugin lacks a dedicated RPC for an event and gets it as a StateChange. */
  StateChange = 1,
}

/** Go's text for a deprecation (`Deprecation.String()`). */
export function deprecationText(deprecation: Deprecation): string {
  return deprecation === Deprecation.StateChange
    ? "deprecated StateChange"
    : `unknown deprecation (${String(deprecation)})`;
}

/** Receives a warning per plugin and deprecated feature it uses (at most once per plugin and event). */
export interface DeprecationRecorder {
  pluginWarning(deprecation: Deprecation, plugin: string, details: string): void;
}
