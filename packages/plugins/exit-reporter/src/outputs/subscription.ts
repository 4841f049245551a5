/**
 * One gRPC watcher's queue of exits: bounded, filled by the reporter
 * without waiting, emptied by the watcher's stream. A watcher whose queue
 * is full is dropped, never waited for.
 */
import type { ExitRecord } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";

export class Subscription implements AsyncIterableIterator<ExitRecord> {
  private readonly queue: ExitRecord[] = [];
  private wake: (() => void) | undefined;
  private ended = false;
  private failure: Error | undefined;

  constructor(
    /** How many exits may wait for the watcher. */
    readonly capacity: number,
    /** Who watches, for logs (the gRPC peer). */
    readonly peer: string,
    /** Called once the subscription ends, however it ends. */
    private readonly onEnd: (subscription: Subscription) => void,
  ) {}

  /** Queues an exit; false (and nothing queued) when the queue is full. */
  push(record: ExitRecord): boolean {
    if (this.ended) return true;
    if (this.queue.length >= this.capacity) return false;
    this.queue.push(record);
    this.wake?.();
    return true;
  }

  /** Ends the stream: with `error` after what is queued is dropped, or cleanly after it is delivered. */
  end(error?: Error): void {
    if (this.ended) return;
    this.ended = true;
    if (error) {
      this.failure = error;
      this.queue.length = 0;
    }
    this.wake?.();
    this.onEnd(this);
  }

  get queued(): number {
    return this.queue.length;
  }

  async next(): Promise<IteratorResult<ExitRecord>> {
    while (this.queue.length === 0 && !this.ended) {
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
    const record = this.queue.shift();
    if (record) return { value: record, done: false };
    if (this.failure) throw this.failure;
    return { value: undefined, done: true };
  }

  /** The stream's consumer went away (the watcher cancelled). */
  async return(): Promise<IteratorResult<ExitRecord>> {
    this.end();
    this.queue.length = 0;
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
