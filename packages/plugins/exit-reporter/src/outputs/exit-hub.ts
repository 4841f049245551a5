/**
 * The exits the gRPC service hands out: the last ones in a ring bounded by
 * count and by bytes, and live subscriptions with filters. Publishing never waits for a
 * watcher: one that falls `subscriberBuffer` exits behind is dropped, its
 * stream ended with RESOURCE_EXHAUSTED, and the reason logged.
 */
import { ServerError, Status } from "nice-grpc-common";
import { type ExitFilter, ExitRecord } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import { Subscription } from "./subscription.js";

export const DEFAULT_RECENT = 1000;
export const DEFAULT_SUBSCRIBER_BUFFER = 1000;
/** What the ring's records may take together, encoded; the oldest go first beyond it. */
export const DEFAULT_RECENT_BYTES = 16 * 1024 * 1024;

export interface ExitHubOptions {
  /** How many exits the ring keeps; default 1000. */
  recent?: number;
  /** How many bytes (encoded) the ring's exits may take together; default 16 MiB. */
  recentBytes?: number;
  /** How many exits may wait for one watcher before it is dropped; default 1000. */
  subscriberBuffer?: number;
  /** Told why a watcher was dropped. */
  onSubscriberDropped: (peer: string, why: string) => void;
}

export function matchesFilter(record: ExitRecord, filter: ExitFilter | undefined): boolean {
  if (!filter) return true;
  if (filter.namespace && record.pod?.namespace !== filter.namespace) return false;
  if (filter.pod && record.pod?.name !== filter.pod) return false;
  if (filter.container && record.container?.name !== filter.container) return false;
  if (filter.nonZeroOnly && record.exitCode === 0) return false;
  return true;
}

export class ExitHub {
  readonly capacity: number;
  private readonly ring: { record: ExitRecord; bytes: number }[] = [];
  private ringBytes = 0;
  private readonly maxRingBytes: number;
  private readonly subscriptions = new Map<Subscription, ExitFilter | undefined>();
  private readonly buffer: number;
  private watchersSeen = 0;

  constructor(private readonly options: ExitHubOptions) {
    this.capacity = options.recent ?? DEFAULT_RECENT;
    this.maxRingBytes = options.recentBytes ?? DEFAULT_RECENT_BYTES;
    this.buffer = options.subscriberBuffer ?? DEFAULT_SUBSCRIBER_BUFFER;
  }

  publish(record: ExitRecord): void {
    const bytes = ExitRecord.encode(record).finish().length;
    this.ring.push({ record, bytes });
    this.ringBytes += bytes;
    while (this.ring.length > this.capacity || (this.ringBytes > this.maxRingBytes && this.ring.length > 1)) {
      this.ringBytes -= this.ring.shift()?.bytes ?? 0;
    }
    for (const [subscription, filter] of this.subscriptions) {
      if (!matchesFilter(record, filter) || subscription.push(record)) continue;
      const why = `it fell ${subscription.queued} exits behind (the limit is ${this.buffer})`;
      subscription.end(new ServerError(Status.RESOURCE_EXHAUSTED, `dropped by the exit reporter: ${why}`));
      this.options.onSubscriberDropped(subscription.peer, why);
    }
  }

  /** The newest `limit` matching exits (0: all), oldest first. */
  recent(filter: ExitFilter | undefined, limit = 0): ExitRecord[] {
    const matching = this.ring.map(({ record }) => record).filter((record) => matchesFilter(record, filter));
    return limit > 0 ? matching.slice(-limit) : matching;
  }

  /**
   * A live subscription; it ends when `signal` aborts (the watcher went
   * away), at once when it has aborted already (a call cancelled before its
   * handler ran: it would never abort again, and a filter that matches
   * nothing would never fill its queue to drop it). Logs name it
   * `#<n> (<peer>)`; gRPC knows no peer on a unix socket.
   */
  subscribe(filter: ExitFilter | undefined, peer: string, signal?: AbortSignal): Subscription {
    const name = `#${++this.watchersSeen} (${peer === "unknown" ? "unix socket" : peer})`;
    const stop = () => subscription.end();
    const subscription = new Subscription(this.buffer, name, (ended) => {
      this.subscriptions.delete(ended);
      signal?.removeEventListener("abort", stop);
    });
    if (signal?.aborted) {
      subscription.end();
      return subscription;
    }
    this.subscriptions.set(subscription, filter);
    signal?.addEventListener("abort", stop, { once: true });
    return subscription;
  }

  get watchers(): number {
    return this.subscriptions.size;
  }

  /** Ends every subscription, e.g. when the reporter stops. */
  endAll(error?: Error): void {
    for (const subscription of [...this.subscriptions.keys()]) subscription.end(error);
  }
}
