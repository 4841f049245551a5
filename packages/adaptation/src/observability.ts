import type { ContainerAdjustment } from "@nri-ts/api";

/**
 * Where the adaptation logs: plugin connections, registrations, closings,
 * and the errors it survives. `fields` carry structured details (plugin
 * name, operation, error); a pino or console logger fits.
 */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** A logger that drops everything: the default. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};

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
