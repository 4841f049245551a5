/**
 * An API server's Event and pod endpoints in memory (a pod's status: the
 * container ends it says), for the Kubernetes
 * output's tests: it keeps what it was sent, checks what the real one
 * checks of an Event (the fields required of a new one, the series, the
 * note's length), and can be made to go away (no answer), to refuse (403),
 * or to take a request and lose its answer.
 */
import { silentLogger } from "@nri-ts/stub";
import type { EventBody, EventSeries } from "../outputs/kubernetes/event-body.js";
import { type ContainerTermination, KubeApiError, type KubeApi } from "../outputs/kubernetes/kube-api.js";
import type { KubernetesOutputOptions } from "../outputs/kubernetes/kubernetes-output.js";

export class MemoryKubeApi implements KubeApi {
  readonly server = "https://memory.invalid";
  readonly events = new Map<string, EventBody>();
  readonly pods = new Map<string, Record<string, string>>();
  /** The ends the pods' statuses say, by container id (as the kubelet would put them there). */
  readonly terminations = new Map<string, ContainerTermination>();
  /** Pods (`namespace/name`) deleted: reading one is 404 NotFound. */
  readonly deletedPods = new Set<string>();
  readonly calls: string[] = [];
  /** No answer at all (the server is away). */
  down = false;
  /** 403 Forbidden for everything. */
  forbidden = false;
  /** Take this many requests but answer none of them. */
  loseAnswers = 0;
  /** Answers wait for this. */
  gate: Promise<void> | undefined;

  private async answer<T>(what: string, signal: AbortSignal, act: () => T): Promise<T> {
    this.calls.push(what);
    if (this.gate !== undefined) await this.gate;
    signal.throwIfAborted();
    if (this.down) throw new KubeApiError("connect ECONNREFUSED 127.0.0.1:6443", undefined);
    if (this.forbidden)
      throw new KubeApiError(
        '403 Forbidden: events.events.k8s.io is forbidden: User "system:serviceaccount:kube-system:default" cannot create resource "events" in API group "events.k8s.io"',
        403,
        "Forbidden",
      );
    const result = act();
    if (this.loseAnswers > 0) {
      this.loseAnswers--;
      throw new KubeApiError("the request timed out", undefined);
    }
    return result;
  }

  async createEvent(event: EventBody, signal: AbortSignal): Promise<void> {
    const key = `${event.metadata.namespace}/${event.metadata.name}`;
    await this.answer(`create ${key}`, signal, () => {
      if (this.events.has(key))
        throw new KubeApiError(
          `409 AlreadyExists: events "${event.metadata.name}" already exists`,
          409,
          "AlreadyExists",
        );
      const problems = [
        !event.eventTime && "eventTime: Required value",
        !event.reportingController && "reportingController: Required value",
        !event.reportingInstance && "reportingInstance: Required value",
        !event.action && "action: Required value",
        !event.reason && "reason: Required value",
        Buffer.byteLength(event.note) > 1024 && "note: Invalid value: can have at most 1024 characters",
        event.series && event.series.count < 2 && "series.count: should be at least 2",
        event.regarding.namespace !== event.metadata.namespace && "regarding.namespace: does not match event.namespace",
      ].filter(Boolean);
      if (problems.length > 0) throw new KubeApiError(`422 Invalid: ${problems.join(", ")}`, 422, "Invalid");
      this.events.set(key, structuredClone(event));
    });
  }

  async patchEventSeries(namespace: string, name: string, series: EventSeries, signal: AbortSignal): Promise<void> {
    const key = `${namespace}/${name}`;
    await this.answer(`patch ${key} ${series.count}`, signal, () => {
      const event = this.events.get(key);
      if (!event) throw new KubeApiError(`404 NotFound: events "${name}" not found`, 404, "NotFound");
      event.series = { ...series };
    });
  }

  async annotatePod(namespace: string, name: string, annotations: Record<string, string>, signal: AbortSignal) {
    const key = `${namespace}/${name}`;
    await this.answer(`annotate ${key}`, signal, () => {
      this.pods.set(key, { ...this.pods.get(key), ...annotations });
    });
  }

  async containerTermination(namespace: string, pod: string, containerId: string, signal: AbortSignal) {
    return this.answer(`get pod ${namespace}/${pod}`, signal, () => {
      if (this.deletedPods.has(`${namespace}/${pod}`))
        throw new KubeApiError(`404 NotFound: pods "${pod}" not found`, 404, "NotFound");
      return this.terminations.get(containerId);
    });
  }

  async mayI(_verb: string, _group: string, _resource: string, signal: AbortSignal): Promise<boolean> {
    if (this.down) throw new KubeApiError("connect ECONNREFUSED 127.0.0.1:6443", undefined);
    signal.throwIfAborted();
    return !this.forbidden;
  }

  /** The Events of a pod, oldest first. */
  eventsOf(pod: string): EventBody[] {
    return [...this.events.values()].filter((event) => event.regarding.name === pod);
  }
}

/** The Kubernetes output's options for a test, on `api`: the configuration's defaults, nothing logged, drops ignored. */
export function outputOptions(api: KubeApi, options: Partial<KubernetesOutputOptions> = {}): KubernetesOutputOptions {
  return {
    api,
    node: "node-1",
    events: "nonZero",
    podAnnotations: false,
    queue: { maxItems: 1000, maxBytes: 1 << 20 },
    rateLimits: { pod: { burst: 25, refillMs: 300_000 }, overall: { burst: 100, refillMs: 100 } },
    onDrop: () => {},
    logger: silentLogger,
    ...options,
  };
}
