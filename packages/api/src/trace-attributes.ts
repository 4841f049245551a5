import {
  type Container,
  ContainerAdjustment,
  type DeepPartial,
  type PodSandbox,
} from "./gen/nri/pkg/api/v1alpha1/api.js";

/**
 * The span attributes NRI tracing adds to OpenTelemetry's conventions, by
 * what they say. The runtime's spans (@nri-ts/adaptation) and the plugins'
 * (@nri-ts/stub) use them, so that one query finds both sides.
 */
export const TraceAttribute = {
  /** The plugin's base name, e.g. `logger`. */
  pluginName: "nri.plugin.name",
  /** The plugin's index, two digits, e.g. `10`. */
  pluginIndex: "nri.plugin.index",
  /** How the runtime hosts it: `launched`, `external`, `builtin` or `wasm`. */
  pluginKind: "nri.plugin.kind",
  /** Whether the plugin's answer asked for anything: an adjustment, updates or evictions. */
  adjusted: "nri.adjusted",
  /** How many container updates the answer carried. */
  updates: "nri.updates",
  /** How many of a plugin's unsolicited updates the runtime failed to apply. */
  updatesFailed: "nri.updates.failed",
  /** How many evictions the answer carried. */
  evictions: "nri.evictions",
  /** Why a call failed on the runtime's side: `deadline`, `closed`, `protocol` or `aborted`. */
  failure: "nri.failure",
  /** The plugin's failure policy, e.g. `failRequest, keepConnected`, or `none`. */
  failurePolicy: "nri.failure_policy",
  /** What the policy decided for a failure, e.g. `request went on, plugin dropped`. */
  failureDecision: "nri.failure_policy.decision",
  /** The runtime dropped the plugin for the failure. */
  pluginDropped: "nri.plugin.dropped",
  /** The request failed because of the plugin. */
  requestFailed: "nri.request.failed",
  /** A validator's verdict: `accepted` or `rejected`. */
  verdict: "nri.validation.verdict",
  /** The reason a validator gave for rejecting. */
  verdictReason: "nri.validation.reason",
  /** The two plugins of a conflict: the one that set the field first, then the one whose claim failed. */
  conflictPlugins: "nri.conflict.plugins",
  /** The field both plugins tried to set. */
  conflictField: "nri.conflict.field",
  /** How many pods a Synchronize carried. */
  pods: "nri.pods",
  /** How many containers a Synchronize carried. */
  containers: "nri.containers",
} as const;

/** What a request tells tracing about itself: the pod and container it is about, or what a Synchronize carries. */
export interface TracedRequest {
  pod?: PodSandbox | undefined;
  container?: Container | undefined;
  /** A Synchronize's pods: only their number is read. */
  pods?: readonly unknown[] | undefined;
  /** A Synchronize's containers: only their number is read. */
  containers?: readonly unknown[] | undefined;
}

/**
 * The attributes of a request (any Plugin method's, e.g. a
 * CreateContainerRequest or a SynchronizeRequest): those OpenTelemetry's
 * semantic conventions give the pod and container it is about
 * (`k8s.pod.name`, `k8s.pod.uid`, `k8s.namespace.name`,
 * `k8s.container.name` and `container.id`), and how many pods and
 * containers a Synchronize carries (`nri.pods`, `nri.containers`), each
 * only when set.
 */
export function traceAttributes(request: TracedRequest): Record<string, string | number> {
  const attributes: Record<string, string | number> = {};
  const { pod, container, pods, containers } = request;
  if (pod?.name) attributes["k8s.pod.name"] = pod.name;
  if (pod?.uid) attributes["k8s.pod.uid"] = pod.uid;
  if (pod?.namespace) attributes["k8s.namespace.name"] = pod.namespace;
  if (container?.name) attributes["k8s.container.name"] = container.name;
  if (container?.id) attributes["container.id"] = container.id;
  if (pods !== undefined) attributes[TraceAttribute.pods] = pods.length;
  if (containers !== undefined) attributes[TraceAttribute.containers] = containers.length;
  return attributes;
}

/** What a plugin answered, as far as tracing reads it (a message, or the partial one a plugin returns). */
export interface TracedAnswer {
  adjust?: DeepPartial<ContainerAdjustment> | undefined;
  update?: readonly unknown[] | undefined;
  evict?: readonly unknown[] | undefined;
  reject?: boolean | undefined;
  reason?: string | undefined;
}

/** The Plugin methods whose answers may ask for changes. */
const CHANGING = new Set(["createContainer", "updateContainer", "stopContainer", "synchronize"]);

/**
 * The attributes of a plugin's answer to `method` (a Plugin service method
 * by its key, e.g. `createContainer`): a validator's verdict
 * (`nri.validation.verdict`, and the reason of a rejection); for methods
 * whose answers may ask for changes, whether this one did (`nri.adjusted`:
 * an adjustment with anything in it, updates or evictions) and how many
 * updates and evictions it carried; nothing for the others.
 */
export function answerAttributes(
  method: string,
  answer: TracedAnswer | undefined,
): Record<string, string | number | boolean> {
  if (method === "validateContainerAdjustment") {
    return answer?.reject
      ? { [TraceAttribute.verdict]: "rejected", [TraceAttribute.verdictReason]: answer.reason ?? "" }
      : { [TraceAttribute.verdict]: "accepted" };
  }
  if (!CHANGING.has(method)) return {};
  const updates = answer?.update?.length ?? 0;
  const evictions = answer?.evict?.length ?? 0;
  // whatever is set in an adjustment is encoded: an empty one encodes to nothing
  const adjust = answer?.adjust;
  const adjusted =
    adjust != null && ContainerAdjustment.encode(ContainerAdjustment.fromPartial(adjust)).finish().length > 0;
  return {
    [TraceAttribute.adjusted]: adjusted || updates > 0 || evictions > 0,
    [TraceAttribute.updates]: updates,
    [TraceAttribute.evictions]: evictions,
  };
}
