/**
 * The adaptation's metrics as Prometheus metrics (needs prom-client).
 * @module @nri-ts/adaptation/prometheus
 */
import { OversizedMessageError } from "@nri-ts/ttrpc";
import { ClientError, ServerError } from "nice-grpc-common";
import { Counter, Gauge, Histogram, register, type Registry } from "prom-client";
import type { Metrics } from "./observability.js";
import { PluginError } from "./plugin-error.js";

/**
 * The metric names containerd gives its NRI metrics (namespace
 * `containerd`, subsystem `nri`); prometheusMetrics registers these.
 */
export const NRI_METRIC_NAMES = {
  /** Counter: plugin, operation, status (`success`/`error`), error (the error's type, `""` on success). */
  invocations: "containerd_nri_plugin_invocations_total",
  /** Histogram, seconds, Prometheus' default buckets: plugin, operation. */
  latency: "containerd_nri_plugin_latency_seconds",
  /** Counter: plugin, operation, type (`update`/`evict`); only requests that asked for any. */
  adjustments: "containerd_nri_plugin_adjustments_total",
  /** Gauge: the number of active plugins. */
  activePlugins: "containerd_nri_active_plugins_total",
} as const;

/**
 * gRPC codes as Prometheus label values (snake case, index = code), as
 * containerd spells them: note the single l of `canceled`.
 */
const CODE_LABELS: readonly string[] = [
  "ok",
  "canceled",
  "unknown",
  "invalid_argument",
  "deadline_exceeded",
  "not_found",
  "already_exists",
  "permission_denied",
  "resource_exhausted",
  "failed_precondition",
  "aborted",
  "out_of_range",
  "unimplemented",
  "internal",
  "unavailable",
  "data_loss",
  "unauthenticated",
];

/**
 * The `error` label of a failed invocation, classified as containerd
 * classifies Go's error: a timeout is `deadline_exceeded`; an error that
 * carries a gRPC status (a plugin's answer over ttrpc, a message refused as
 * oversized, a ServerError or ClientError thrown by a builtin plugin) is
 * its code in snake case (`unknown_code` past the known ones); anything
 * else is `other`. So a lost connection and a protocol violation, plain
 * errors in Go's ttrpc, are `other`, and so is a builtin plugin's plain
 * Error, whose PluginError code (Unknown) is this side's invention.
 */
function errorType(error: Error): string {
  if (!(error instanceof PluginError)) return statusType(error);
  if (error.local === "deadline") return "deadline_exceeded";
  if (error.local !== undefined) return "other";
  return statusType(error.cause);
}

function statusType(error: unknown): string {
  if (error instanceof ClientError || error instanceof ServerError) return CODE_LABELS[error.code] ?? "unknown_code";
  if (error instanceof OversizedMessageError) return "resource_exhausted";
  return "other";
}

/** The metric already registered under `name`, if it is of the expected kind. */
function registered<M>(registry: Registry, name: string, kind: abstract new (...args: never[]) => M): M | undefined {
  const existing: unknown = registry.getSingleMetric(name);
  if (existing === undefined) return undefined;
  if (existing instanceof kind) return existing;
  throw new TypeError(`metric ${name} is already registered as another kind than ${kind.name}`);
}

/**
 * Metrics for Prometheus through prom-client (an optional peer dependency,
 * loaded only by this entry point, `@nri-ts/adaptation/prometheus`): the
 * names, help texts, labels, buckets and semantics of containerd's NRI
 * metrics, which implement the same hook interface in Go.
 *
 * Metrics already in the registry under these names are reused, so several
 * adaptations (or restarts) share one set, as they do in containerd; give
 * each adaptation its own Registry to keep them apart. The `adjust` argument
 * counts nothing, as in containerd.
 *
 * @param registry where to register (default: prom-client's global registry)
 * @throws TypeError when one of the names is taken by another kind of metric
 */
export function prometheusMetrics(registry: Registry = register): Metrics {
  const registers = [registry];
  const invocations =
    registered(registry, NRI_METRIC_NAMES.invocations, Counter<"plugin" | "operation" | "status" | "error">) ??
    new Counter({
      name: NRI_METRIC_NAMES.invocations,
      help: "Number of NRI plugin invocations",
      labelNames: ["plugin", "operation", "status", "error"] as const,
      registers,
    });
  const latency =
    registered(registry, NRI_METRIC_NAMES.latency, Histogram<"plugin" | "operation">) ??
    new Histogram({
      name: NRI_METRIC_NAMES.latency,
      help: "NRI plugin operation latency",
      labelNames: ["plugin", "operation"] as const,
      registers,
    });
  const adjustments =
    registered(registry, NRI_METRIC_NAMES.adjustments, Counter<"plugin" | "operation" | "type">) ??
    new Counter({
      name: NRI_METRIC_NAMES.adjustments,
      help: "Number of adjustment operations from plugins",
      labelNames: ["plugin", "operation", "type"] as const,
      registers,
    });
  const activePlugins =
    registered(registry, NRI_METRIC_NAMES.activePlugins, Gauge) ??
    new Gauge({ name: NRI_METRIC_NAMES.activePlugins, help: "Number of currently active NRI plugins", registers });

  return {
    recordPluginInvocation(plugin, operation, error) {
      invocations.inc({
        plugin,
        operation,
        status: error === undefined ? "success" : "error",
        error: error === undefined ? "" : errorType(error),
      });
    },
    recordPluginLatency(plugin, operation, milliseconds) {
      latency.observe({ plugin, operation }, milliseconds / 1000);
    },
    recordPluginAdjustments(plugin, operation, _adjust, updates, evictions) {
      if (updates > 0) adjustments.inc({ plugin, operation, type: "update" }, updates);
      if (evictions > 0) adjustments.inc({ plugin, operation, type: "evict" }, evictions);
    },
    updatePluginCount(count) {
      activePlugins.set(count);
    },
  };
}
