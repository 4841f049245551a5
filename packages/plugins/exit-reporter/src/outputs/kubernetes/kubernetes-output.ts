/**
 * The Kubernetes output: each container end that is selected becomes an
 * Event on its pod (`events.k8s.io/v1`), and, when asked, the last end of
 * each container an annotation of the pod.
 *
 * - Repeats are a series: the same container ending the same way again
 *   within {@link SERIES_WINDOW_MS} of the last time raises the Event's
 *   `series.count` instead of adding an Event, as client-go's event
 *   recorder does for the kubelet.
 * - `publish` never waits: records go to a {@link SendQueue} bounded in
 *   count and bytes, sent one at a time. While the API server does not
 *   answer, they wait and are sent when it does, each once (an Event's
 *   name is fixed when its series starts, so a create the server took
 *   without answering is an `AlreadyExists` the second time, and a series
 *   count is sent as a number, not an increment). Past the bound the
 *   oldest are dropped and counted.
 * - Writes are rate-limited per pod and overall (token buckets); a repeat
 *   that waits for a token only raises the count it will send.
 * - A SIGKILL the reporter could not confirm as an OOM kill waits (a few
 *   seconds at most, {@link MAX_STATUS_READS} at once) for the pod's
 *   status, which says `OOMKilled` when the runtime saw one (see
 *   pod-status-oom.ts), before it goes to the queue.
 * - A refusal (403 Forbidden, 422 Invalid, …) is logged and counted per
 *   Event; it never stops the output. One exception: an API server that
 *   has just come back answers 403 until its authorizer has loaded the
 *   RBAC objects (a few seconds, seen on a restarted kube-apiserver), so
 *   403s within {@link AUTHORIZER_WARMUP_MS} of the end of an outage are
 *   retried like no answer.
 */
import type { Logger } from "@nri-ts/stub";
import type { ExitRecord } from "../../gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import type { DropListener, ExitOutput } from "../output.js";
import { eventBody, eventName, microTime, REPORTING_CONTROLLER, seriesKey } from "./event-body.js";
import { KubeApiError, type KubeApi } from "./kube-api.js";
import { PodStatusOom, wantsPodStatus } from "./pod-status-oom.js";
import { type BucketLimits, KeyedBuckets, TokenBucket } from "./rate-limit.js";
import { type QueueItem, type QueueLimits, SendQueue, type Series } from "./send-queue.js";
import { BoundedMap } from "../../record/bounded-map.js";

/** A series goes on while its ends come within this of each other (client-go ends one after 6 minutes). */
export const SERIES_WINDOW_MS = 6 * 60_000;
/** The annotation prefix of a container's last end: `last-end.exit-reporter.nri-ts.dev/<container>`. */
export const LAST_END_ANNOTATION = "last-end.exit-reporter.nri-ts.dev";
/** How long after an outage a 403 is taken for an authorizer still loading RBAC, and retried. */
export const AUTHORIZER_WARMUP_MS = 60_000;
const MAX_SERIES = 4096;
/** Ends that wait for their pod's status at once; more go as the reporter made them. */
export const MAX_STATUS_READS = 64;
const REQUEST_TIMEOUT_MS = 10_000;
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;

/** Which ends become Events. */
export type EventSelection = "nonZero" | "all" | "none";

export interface RateLimits {
  /** Per pod: writes at once, and then one per `refillMs`. */
  pod: BucketLimits;
  /** All pods together. */
  overall: BucketLimits;
}

export interface KubernetesOutputOptions {
  api: KubeApi;
  /** The node, as each Event's `reportingInstance`. */
  node: string;
  events: EventSelection;
  podAnnotations: boolean;
  /** Reads the pod's status for a SIGKILL the reporter could not confirm as an OOM kill (and how long it waits). */
  oomFromPodStatus?: boolean | { attempts: number; intervalMs: number };
  queue: QueueLimits;
  rateLimits: RateLimits;
  onDrop: DropListener;
  /** Told about each request: what it was and how it went (`ok`, the HTTP status, or `unreachable`). */
  onRequest?: (operation: "create" | "patch" | "annotate", outcome: string) => void;
  logger: Logger;
  /** The clock of series and rate limits, in ms. */
  now?: () => number;
  /** Waits before trying again after no answer: from `min` doubling to `max`. */
  retry?: { minMs: number; maxMs: number };
}

export const OUTPUT_NAME = "kubernetes";

/** What an entry of annotations weighs in the queue: the annotations as the patch sends them. */
function patchBytes(values: Record<string, string>): number {
  return Buffer.byteLength(JSON.stringify(values));
}

export class KubernetesOutput implements ExitOutput {
  readonly name = OUTPUT_NAME;
  readonly where: string;
  private readonly queue: SendQueue;
  private readonly series = new BoundedMap<string, Series>(MAX_SERIES);
  private readonly podBuckets: KeyedBuckets;
  private readonly overall: TokenBucket;
  private readonly now: () => number;
  private readonly aborts = new AbortController();
  private readonly podStatus: PodStatusOom | undefined;
  /** Ends waiting for their pod's status; the close ends the waits. */
  private readonly statusReads = new Set<Promise<void>>();
  private readonly statusAborts = new AbortController();
  /** Ends a wait early: `wake` for a new entry, `stop` for the close. */
  private wake: (() => void) | undefined;
  private stop: (() => void) | undefined;
  private closing = false;
  private stamp = 0n;
  /** Since when the API server does not answer, and what it said last. */
  private outage: { since: number; why: string } | undefined;
  /** When the API server answered again after an outage, while its 403s are retried. */
  private backSince: number | undefined;
  private retryMs: number;
  private readonly loop: Promise<void>;

  constructor(private readonly options: KubernetesOutputOptions) {
    this.now = options.now ?? Date.now;
    this.where = options.api.server;
    this.queue = new SendQueue(options.queue);
    this.podBuckets = new KeyedBuckets(options.rateLimits.pod);
    this.overall = new TokenBucket(options.rateLimits.overall, this.now());
    this.retryMs = options.retry?.minMs ?? RETRY_MIN_MS;
    const { oomFromPodStatus } = options;
    if (oomFromPodStatus)
      this.podStatus = new PodStatusOom({
        api: options.api,
        logger: options.logger,
        wait: oomFromPodStatus === true ? undefined : oomFromPodStatus,
      });
    this.loop = this.run();
  }

  /** How many entries wait to be sent (a series counts once). */
  get waiting(): number {
    return this.queue.length;
  }

  publish(record: ExitRecord): void {
    if (this.closing) return;
    const pod = record.pod;
    if (!pod?.name || !pod.namespace) return;
    if (this.podStatus && this.statusReads.size < MAX_STATUS_READS && wantsPodStatus(record)) {
      const read: Promise<void> = this.podStatus
        .explain(record, this.statusAborts.signal)
        .then((explained) => this.accept(explained))
        .catch((error: Error) => this.options.logger.error(`the Kubernetes output lost an end: ${error.message}`))
        .finally(() => this.statusReads.delete(read));
      this.statusReads.add(read);
      return;
    }
    this.accept(record);
  }

  private accept(record: ExitRecord): void {
    if (this.options.podAnnotations && record.container?.name) this.annotate(record);
    if (this.selected(record)) this.observe(record);
    this.wake?.();
  }

  private selected(record: ExitRecord): boolean {
    const { events } = this.options;
    return events === "all" || (events === "nonZero" && record.exitCode !== 0);
  }

  private podKey(record: ExitRecord): string {
    const pod = record.pod!;
    return pod.uid || `${pod.namespace}/${pod.name}`;
  }

  /** A new series, or one more end of a series that goes on. */
  private observe(record: ExitRecord): void {
    const key = seriesKey(record);
    const now = this.now();
    const time = microTime(record.finishedAt || record.reportedAt);
    const series = this.series.get(key);
    if (series && now - series.lastSeenMs <= SERIES_WINDOW_MS) {
      series.observed++;
      series.lastSeenMs = now;
      series.lastObservedTime = time;
      if (!this.queue.waiting(key)) this.enqueue(this.eventItem(series));
      return;
    }
    // unique per reporter process: the time, and a counter for ends in the same nanosecond
    const stamp = record.reportedAt > this.stamp ? record.reportedAt : this.stamp + 1n;
    this.stamp = stamp;
    const body = eventBody(record, this.options.node, eventName(record.pod!.name, stamp));
    const fresh: Series = {
      key,
      pod: this.podKey(record),
      body,
      observed: 1,
      sent: 0,
      lastObservedTime: time,
      lastSeenMs: now,
    };
    this.series.put(key, fresh);
    this.enqueue(this.eventItem(fresh));
  }

  private eventItem(series: Series): QueueItem {
    return {
      kind: "event",
      key: series.key,
      pod: series.pod,
      bytes: Buffer.byteLength(JSON.stringify(series.body)),
      series,
    };
  }

  /** The container's last end, in the pod's annotations (the latest wins while they wait). */
  private annotate(record: ExitRecord): void {
    const pod = record.pod!;
    const key = `annotations ${this.podKey(record)}`;
    const value = JSON.stringify({
      exitCode: record.exitCode ?? null,
      ...(record.signal && { signal: record.signal }),
      reason: record.reason,
      finishedAt: microTime(record.finishedAt || record.reportedAt),
      explanation: record.explanation.slice(0, 1024),
    });
    const annotation = `${LAST_END_ANNOTATION}/${record.container!.name}`;
    const waiting = this.queue.waiting(key);
    if (waiting?.kind === "annotations") {
      waiting.values[annotation] = value;
      this.dropped(this.queue.resize(waiting, patchBytes(waiting.values)), "full");
      return;
    }
    const values = { [annotation]: value };
    this.enqueue({
      kind: "annotations",
      key,
      pod: this.podKey(record),
      bytes: patchBytes(values),
      namespace: pod.namespace,
      name: pod.name,
      values,
    });
  }

  private enqueue(item: QueueItem, front = false): void {
    this.dropped(this.queue.add(item, front), "full");
  }

  /** Counts what the queue let go (the ends it held that the API server does not have). */
  private dropped(items: readonly QueueItem[], why: "full" | "closing"): void {
    const { maxItems, maxBytes } = this.queue.limits;
    const reason =
      why === "full"
        ? `its queue is full (${maxItems} entries or ${maxBytes} bytes)${this.outage ? ` while the API server does not answer (${this.outage.why})` : ""}: the oldest went`
        : "the reporter stopped before the API server took them";
    for (const item of items) {
      if (item.kind === "annotations") {
        this.options.onDrop(`${OUTPUT_NAME}-annotations`, 1, reason);
        continue;
      }
      const { series } = item;
      const lost = series.observed - series.sent;
      series.observed = series.sent;
      // a series the API server never saw starts again with the next end
      if (series.sent === 0) this.series.delete(series.key);
      if (lost > 0) this.options.onDrop(OUTPUT_NAME, lost, reason);
    }
  }

  /** Waits `ms`; a new entry ends the wait early when `wakeable`, the close always does. */
  private sleep(ms: number, wakeable = true): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        this.stop = undefined;
        resolve();
      };
      const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
      this.stop = done;
      if (wakeable) this.wake = done;
    });
  }

  /** The next entry whose pod may write now; else how long until one may. */
  private next(): { item?: QueueItem; waitMs: number } {
    const now = this.now();
    const overallWait = this.overall.waitMs(now);
    if (this.queue.length === 0) return { waitMs: Number.POSITIVE_INFINITY };
    if (overallWait > 0) return { waitMs: overallWait };
    const item = this.queue.take((candidate) => this.podBuckets.waitMs(candidate.pod, now) === 0);
    if (item) return { item, waitMs: 0 };
    return { waitMs: Math.min(...[...this.queue.pods()].map((pod) => this.podBuckets.waitMs(pod, now))) };
  }

  private async run(): Promise<void> {
    while (!this.aborts.signal.aborted) {
      const { item, waitMs } = this.next();
      if (!item) {
        await this.sleep(waitMs);
        continue;
      }
      const now = this.now();
      this.overall.take(now);
      this.podBuckets.take(item.pod, now);
      try {
        await this.send(item);
        this.succeeded();
      } catch (error) {
        if (this.aborts.signal.aborted) {
          this.enqueue(item, true);
          return;
        }
        const failure = error instanceof KubeApiError ? error : new KubeApiError(String(error), undefined);
        if (failure.transient) this.unanswered(failure);
        else this.answered();
        if (failure.transient || this.warmingUp(failure)) {
          // no write happened: the tokens are not spent
          this.overall.give();
          this.podBuckets.give(item.pod);
          this.enqueue(item, true);
          await this.sleep(this.retryMs, false);
          this.retryMs = Math.min(this.retryMs * 2, this.options.retry?.maxMs ?? RETRY_MAX_MS);
        } else {
          this.refused(item, failure);
        }
      }
    }
  }

  /** A 403 from a server that came back moments ago: its authorizer may not have loaded RBAC yet. */
  private warmingUp(failure: KubeApiError): boolean {
    if (failure.status !== 403 || this.backSince === undefined) return false;
    if (this.now() - this.backSince >= AUTHORIZER_WARMUP_MS) {
      this.backSince = undefined;
      return false;
    }
    return true;
  }

  private request<T>(
    operation: "create" | "patch" | "annotate",
    call: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const signal = AbortSignal.any([this.aborts.signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]);
    return call(signal).then(
      (result) => {
        this.options.onRequest?.(operation, "ok");
        return result;
      },
      (error: unknown) => {
        const status = error instanceof KubeApiError ? error.status : undefined;
        this.options.onRequest?.(operation, status === undefined ? "unreachable" : String(status));
        throw error;
      },
    );
  }

  private async send(item: QueueItem): Promise<void> {
    const { api } = this.options;
    if (item.kind === "annotations") {
      await this.request("annotate", (signal) => api.annotatePod(item.namespace, item.name, item.values, signal));
      return;
    }
    const { series } = item;
    const count = series.observed;
    const seriesField = { count, lastObservedTime: series.lastObservedTime };
    if (series.sent === 0) {
      const body = count >= 2 ? { ...series.body, series: seriesField } : series.body;
      try {
        await this.request("create", (signal) => api.createEvent(body, signal));
        series.sent = count;
      } catch (error) {
        // taken before, its answer lost (the server stopped, the request timed out): it is there
        if (!(error instanceof KubeApiError && error.status === 409)) throw error;
        series.sent = 1;
      }
    } else {
      try {
        await this.request("patch", (signal) =>
          api.patchEventSeries(series.body.metadata.namespace, series.body.metadata.name, seriesField, signal),
        );
        series.sent = count;
      } catch (error) {
        if (!(error instanceof KubeApiError && error.status === 404)) throw error;
        // the Event is gone (events live an hour by default): the series goes on in a new one
        this.stamp += 1n;
        series.body = {
          ...series.body,
          metadata: {
            ...series.body.metadata,
            name: `${series.body.metadata.name}-${this.stamp.toString(16).slice(-6)}`,
          },
        };
        series.sent = 0;
      }
    }
    if (series.observed > series.sent && !this.queue.waiting(series.key)) this.enqueue(item);
  }

  private answered(): void {
    if (!this.outage) return;
    this.retryMs = this.options.retry?.minMs ?? RETRY_MIN_MS;
    const seconds = Math.round((this.now() - this.outage.since) / 1000);
    this.options.logger.info(
      { server: this.where, waiting: this.queue.length },
      `the API server at ${this.where} answers again after ${seconds}s: sending the ${this.queue.length} entries that waited (403 Forbidden is retried for ${AUTHORIZER_WARMUP_MS / 1000}s, while its authorizer loads RBAC)`,
    );
    this.outage = undefined;
    this.backSince = this.now();
  }

  /** A request went through: the next wait starts short again. */
  private succeeded(): void {
    this.answered();
    this.retryMs = this.options.retry?.minMs ?? RETRY_MIN_MS;
  }

  private unanswered(failure: KubeApiError): void {
    if (this.outage) {
      this.outage.why = failure.message;
      return;
    }
    this.outage = { since: this.now(), why: failure.message };
    const { maxItems, maxBytes } = this.queue.limits;
    this.options.logger.warn(
      { server: this.where, status: failure.status, waiting: this.queue.length },
      `the API server at ${this.where} does not take Events (${failure.message}): they wait (at most ${maxItems} entries or ${maxBytes} bytes, the oldest dropped first) and go when it does`,
    );
  }

  /** The API server refused an entry for good: logged and counted, the output goes on. */
  private refused(item: QueueItem, failure: KubeApiError): void {
    const what =
      item.kind === "event"
        ? `the Event ${item.series.body.reason} on pod ${item.series.body.regarding.namespace}/${item.series.body.regarding.name}`
        : `the annotations of pod ${item.namespace}/${item.name}`;
    const hint =
      failure.status === 403
        ? ` (is ${REPORTING_CONTROLLER}'s ClusterRole bound to the reporter's service account?)`
        : "";
    const why = `the API server refused ${what}: ${failure.message}${hint}`;
    if (item.kind === "annotations") {
      this.options.onDrop(`${OUTPUT_NAME}-annotations`, 1, why);
      return;
    }
    const lost = item.series.observed - item.series.sent;
    item.series.observed = item.series.sent;
    if (item.series.sent === 0) this.series.delete(item.series.key);
    this.options.onDrop(OUTPUT_NAME, lost, why);
  }

  /**
   * Checks, in the background, that the credentials may create Events
   * (and annotate pods, and read their status, when asked): a denial is
   * logged as an error at start, instead of only at the first Event.
   */
  checkAccess(): Promise<void> {
    type Grant = { verb: string; group: string; resource: string; without: string };
    const refused = "each Event will be refused (403 Forbidden), logged and counted, until they may";
    const wanted: Grant[] = [
      { verb: "create", group: "events.k8s.io", resource: "events", without: refused },
      { verb: "patch", group: "events.k8s.io", resource: "events", without: refused },
      ...(this.options.podAnnotations
        ? [
            {
              verb: "patch",
              group: "",
              resource: "pods",
              without: "each annotation will be refused, logged and counted",
            },
          ]
        : []),
      ...(this.options.oomFromPodStatus
        ? [
            {
              verb: "get",
              group: "",
              resource: "pods",
              without: "a SIGKILL the reporter cannot confirm as an OOM kill is not checked against the pod's status",
            },
          ]
        : []),
    ];
    const signal = AbortSignal.any([this.aborts.signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]);
    return Promise.all(
      wanted.map(({ verb, group, resource }) => this.options.api.mayI(verb, group, resource, signal)),
    ).then(
      (allowed) => {
        const denied = wanted.filter((_, i) => !allowed[i]);
        if (denied.length === 0) return;
        const names = denied.map(({ verb, group, resource }) => `${verb} ${group ? `${resource}.${group}` : resource}`);
        const consequences = [...new Set(denied.map((grant) => grant.without))];
        this.options.logger.error(
          { denied: names },
          `the reporter's credentials may not ${names.join(", ")} (RBAC): ${consequences.join("; ")}; deploy/ has the ClusterRole it needs`,
        );
      },
      (error: Error) => {
        if (!this.aborts.signal.aborted)
          this.options.logger.warn(
            `cannot ask the API server at ${this.where} what the reporter may do: ${error.message}`,
          );
      },
    );
  }

  /** Waits for the queue to empty (at most `waitMs`), then stops; what is left is counted as dropped. */
  async close(waitMs = 2000): Promise<void> {
    this.closing = true;
    // the ends that wait for their pod's status go as they are
    this.statusAborts.abort();
    await Promise.all(this.statusReads);
    const deadline = this.now() + waitMs;
    while (this.queue.length > 0 && this.now() < deadline && !this.outage) await new Promise((r) => setTimeout(r, 20));
    this.aborts.abort(new Error("the reporter is stopping"));
    this.stop?.();
    await this.loop;
    this.dropped(this.queue.drain(), "closing");
  }
}
