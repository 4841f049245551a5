import type { Duplex } from "node:stream";

/** Messages a queue holds before it asks its connection to stop reading. */
export const QUEUE_HIGH_WATER = 64;

/** Hooks of a MessageQueue. */
export interface QueueHooks {
  /** The queue went above (true) or back to (false) the high-water mark. */
  pressure?(high: boolean): void;
  /** The consumer stopped iterating before the end. */
  abandoned?(): void;
}

/**
 * The messages of one stream direction as an async iterable with a single
 * consumer: push() from the connection, end() (optionally with an error)
 * once the sender is done.
 */
export class MessageQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private head = 0;
  private done = false;
  private error: unknown = undefined;
  private wake: (() => void) | undefined;
  private high = false;
  private abandoned = false;
  private readonly hooks: QueueHooks;

  constructor(hooks: QueueHooks = {}) {
    this.hooks = hooks;
  }

  /** True once end() was called or the consumer left. */
  get finished(): boolean {
    return this.done || this.abandoned;
  }

  push(item: T): void {
    if (this.finished) return;
    this.items.push(item);
    if (!this.high && this.items.length - this.head > QUEUE_HIGH_WATER) this.setHigh(true);
    this.notify();
  }

  /** No more messages; with an error, the consumer sees it after the queued ones. */
  end(error?: unknown): void {
    if (this.finished) return;
    this.done = true;
    this.error = error;
    this.notify();
  }

  /** Drops what is queued and anything pushed later, e.g. because nobody will read it. */
  discard(): void {
    this.abandoned = true;
    this.items.length = 0;
    this.head = 0;
    if (this.high) this.setHigh(false);
    this.notify();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    try {
      for (;;) {
        if (this.head < this.items.length) {
          const item = this.items[this.head];
          this.items[this.head++] = undefined as T;
          if (this.head === this.items.length) {
            this.items.length = 0;
            this.head = 0;
          }
          if (this.high && this.items.length - this.head <= QUEUE_HIGH_WATER / 2) this.setHigh(false);
          yield item;
        } else if (this.done) {
          if (this.error !== undefined) throw this.error;
          return;
        } else {
          await new Promise<void>((resolve) => (this.wake = resolve));
        }
      }
    } finally {
      const early = !this.done;
      this.discard();
      if (early) this.hooks.abandoned?.();
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private setHigh(high: boolean): void {
    this.high = high;
    this.hooks.pressure?.(high);
  }
}

/**
 * Stops reading a duplex while anything holds it back (a stream queue above
 * its high-water mark, a server's answers waiting to be written), and reads
 * on once nothing does.
 */
export class ReadPressure {
  private readonly duplex: Duplex;
  private high = 0;

  constructor(duplex: Duplex) {
    this.duplex = duplex;
  }

  /** The hook for QueueHooks.pressure. */
  readonly pressure = (high: boolean): void => {
    this.high += high ? 1 : -1;
    if (high && this.high === 1) this.duplex.pause();
    else if (!high && this.high === 0 && !this.duplex.destroyed) this.duplex.resume();
  };
}
