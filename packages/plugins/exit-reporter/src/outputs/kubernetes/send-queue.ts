/**
 * What the Kubernetes output has still to send, bounded in count and in
 * bytes: the oldest go first when it is full. One entry per Event series
 * (a repeat while its entry waits only raises the count it will send) and
 * one per pod for its annotations, so that a crash loop or a long outage
 * of the API server holds few entries.
 */
import type { EventBody } from "./event-body.js";

/** The Event of one kind of end of one container, and how often it happened. */
export interface Series {
  key: string;
  /** The pod, for its rate limit and the messages. */
  pod: string;
  body: EventBody;
  /** How many ends it counts, and how many the API server has (0: not created yet). */
  observed: number;
  sent: number;
  lastObservedTime: string;
  /** When it was last seen (the output's clock, ms): a series ends after a while without repeats. */
  lastSeenMs: number;
}

export type QueueItem =
  | { kind: "event"; key: string; pod: string; bytes: number; series: Series }
  | {
      kind: "annotations";
      key: string;
      pod: string;
      bytes: number;
      namespace: string;
      name: string;
      values: Record<string, string>;
    };

export interface QueueLimits {
  maxItems: number;
  maxBytes: number;
}

export class SendQueue {
  private readonly items: QueueItem[] = [];
  private readonly byKey = new Map<string, QueueItem>();
  private bytes = 0;

  constructor(readonly limits: QueueLimits) {}

  get length(): number {
    return this.items.length;
  }

  /** The entry waiting under `key`, if any. */
  waiting(key: string): QueueItem | undefined {
    return this.byKey.get(key);
  }

  /**
   * Adds an entry at the end (or, for one taken out and not sent, at the
   * front), then drops the oldest while the queue is over its bounds.
   * @returns the entries dropped
   */
  add(item: QueueItem, front = false): QueueItem[] {
    const other = this.byKey.get(item.key);
    if (other) this.remove(other);
    if (front) this.items.unshift(item);
    else this.items.push(item);
    this.byKey.set(item.key, item);
    this.bytes += item.bytes;
    const dropped: QueueItem[] = [];
    while (
      this.items.length > 0 &&
      (this.items.length > this.limits.maxItems || this.bytes > this.limits.maxBytes) &&
      this.items[0] !== undefined
    ) {
      const oldest = this.items[0];
      this.remove(oldest);
      dropped.push(oldest);
    }
    return dropped;
  }

  /** Grows an entry's size (its annotations changed). */
  resize(item: QueueItem, bytes: number): QueueItem[] {
    this.remove(item);
    item.bytes = bytes;
    return this.add(item);
  }

  /** The first entry `ready` takes, taken out of the queue. */
  take(ready: (item: QueueItem) => boolean): QueueItem | undefined {
    const item = this.items.find(ready);
    if (item) this.remove(item);
    return item;
  }

  /** Every entry, taken out (the oldest first). */
  drain(): QueueItem[] {
    const all = [...this.items];
    for (const item of all) this.remove(item);
    return all;
  }

  /** The pods of the waiting entries. */
  pods(): Set<string> {
    return new Set(this.items.map((item) => item.pod));
  }

  private remove(item: QueueItem): void {
    const at = this.items.indexOf(item);
    if (at < 0) return;
    this.items.splice(at, 1);
    this.byKey.delete(item.key);
    this.bytes -= item.bytes;
  }
}
