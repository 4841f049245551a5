/**
 * The configuration's `kubernetes:` section: where the API server is
 * (in-cluster by default, or a kubeconfig file), which ends become Events,
 * the optional annotations on the pod, whether the pod's status is read
 * for an OOM kill the reporter could not confirm, the queue's bounds and the rate
 * limits.
 */
import { describe, FieldError, flag, type Mapping, type Reader, text, whole } from "../../config-fields.js";
import type { ConfigPath } from "../../config-issues.js";
import type { EventSelection } from "./kubernetes-output.js";

export interface BucketConfig {
  burst: number;
  /** Seconds to gain one write. */
  refillSeconds: number;
}

export interface KubernetesConfig {
  /** A kubeconfig file; "" for the pod's own (in-cluster) configuration. */
  kubeconfig: string;
  /** The node, as each Event's reportingInstance; "" for `$NODE_NAME`, else the host's name. */
  node: string;
  events: EventSelection;
  /** The last end of each container as an annotation of its pod. */
  podAnnotations: boolean;
  /** A SIGKILL the reporter could not confirm as an OOM kill is checked against the pod's status (`OOMKilled`). */
  oomFromPodStatus: boolean;
  queue: { maxEvents: number; maxBytes: number };
  rateLimit: { perPod: BucketConfig; overall: BucketConfig };
}

/**
 * The limits, and why: per pod, 25 writes at once and then one every 5
 * minutes, what the kubelet's own event recorder allows one object (its
 * spam filter), so that one crash-looping pod costs etcd no more than the
 * kubelet's own events for it; overall, 100 at once and then 10 a second,
 * so that a node where everything ends at once (a drain, a reboot of the
 * runtime) does not crowd the API server: a fifth of the kubelet's default
 * event rate (50 a second). Repeats that wait are not lost: the series
 * count sent next has them.
 */
export const DEFAULT_RATE_LIMIT = {
  perPod: { burst: 25, refillSeconds: 300 },
  overall: { burst: 100, refillSeconds: 0.1 },
} as const;

export const DEFAULT_KUBERNETES: KubernetesConfig = {
  kubeconfig: "",
  node: "",
  events: "nonZero",
  podAnnotations: false,
  oomFromPodStatus: true,
  queue: { maxEvents: 1000, maxBytes: 1024 * 1024 },
  rateLimit: {
    perPod: { ...DEFAULT_RATE_LIMIT.perPod },
    overall: { ...DEFAULT_RATE_LIMIT.overall },
  },
};

const SELECTIONS: readonly EventSelection[] = ["nonZero", "all", "none"];

function seconds(value: unknown, path: ConfigPath): number {
  if (typeof value !== "number" || !(value > 0) || value > 86_400)
    throw new FieldError(path, `expected a number of seconds above 0 (at most a day), got ${describe(value)}`);
  return value;
}

function bucket(value: unknown, path: ConfigPath, fallback: BucketConfig, reader: Reader): BucketConfig {
  const m = reader.mapping(value, path, ["burst", "refillSeconds"]);
  if (!m) return fallback;
  return {
    burst: reader.field(m.burst, (v) => whole(v, [...path, "burst"], 1, 100_000), fallback.burst),
    refillSeconds: reader.field(m.refillSeconds, (v) => seconds(v, [...path, "refillSeconds"]), fallback.refillSeconds),
  };
}

/** The section's fields over the defaults. */
export function readKubernetes(m: Mapping, reader: Reader): KubernetesConfig {
  const config = structuredClone(DEFAULT_KUBERNETES);
  const at = (...path: string[]): ConfigPath => ["kubernetes", ...path];
  config.kubeconfig = reader.field(m.kubeconfig, (v) => text(v, at("kubeconfig")), config.kubeconfig);
  config.node = reader.field(m.node, (v) => text(v, at("node")), config.node);
  config.events = reader.field(
    m.events,
    (v) => {
      if (!SELECTIONS.includes(v as EventSelection))
        throw new FieldError(at("events"), `expected one of ${SELECTIONS.join(", ")}, got ${describe(v)}`);
      return v as EventSelection;
    },
    config.events,
  );
  config.podAnnotations = reader.field(m.podAnnotations, (v) => flag(v, at("podAnnotations")), config.podAnnotations);
  config.oomFromPodStatus = reader.field(
    m.oomFromPodStatus,
    (v) => flag(v, at("oomFromPodStatus")),
    config.oomFromPodStatus,
  );
  const queue = reader.mapping(m.queue, at("queue"), ["maxEvents", "maxBytes"]);
  if (queue) {
    config.queue.maxEvents = reader.field(
      queue.maxEvents,
      (v) => whole(v, at("queue", "maxEvents"), 1, 1_000_000),
      config.queue.maxEvents,
    );
    config.queue.maxBytes = reader.field(
      queue.maxBytes,
      (v) => whole(v, at("queue", "maxBytes"), 4096, 1024 * 1024 * 1024),
      config.queue.maxBytes,
    );
  }
  const limits = reader.mapping(m.rateLimit, at("rateLimit"), ["perPod", "overall"]);
  if (limits) {
    config.rateLimit.perPod = bucket(limits.perPod, at("rateLimit", "perPod"), config.rateLimit.perPod, reader);
    config.rateLimit.overall = bucket(limits.overall, at("rateLimit", "overall"), config.rateLimit.overall, reader);
  }
  return config;
}

export const KUBERNETES_FIELDS = [
  "kubeconfig",
  "node",
  "events",
  "podAnnotations",
  "oomFromPodStatus",
  "queue",
  "rateLimit",
] as const;
