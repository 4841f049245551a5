import type { Duplex } from "node:stream";

/** Frames sent with one system call at most. */
const BATCH = 16;

/** Hooks of a FrameWriter. */
export interface FrameWriterHooks {
  /**
   * The duplex stopped taking frames without queueing (true), or drained the
   * queue (false); called once per change.
   */
  congestion?(congested: boolean): void;
}

/**
 * Hands whole frames to a duplex, one `write()` call per frame and never two
 * frames in one call (a multiplexer below may cut each write as a message),
 * in order, honouring back-pressure: once `write()` returns false, later
 * frames wait in a queue until 'drain'. Frames written in one tick reach the
 * duplex corked, so that a socket sends them with one system call.
 */
export class FrameWriter {
  private readonly duplex: Duplex;
  private readonly hooks: FrameWriterHooks;
  private readonly queue: Buffer[] = [];
  private blocked = false;
  private closed = false;
  private waiters: Array<() => void> = [];
  private corked = false;
  /** Frames written since the last flush. */
  private batched = 0;

  constructor(duplex: Duplex, hooks: FrameWriterHooks = {}) {
    this.duplex = duplex;
    this.hooks = hooks;
    duplex.on("drain", () => this.flush());
  }

  /** Ends a tick's batch: the duplex sends what was written since it was corked. */
  private readonly uncork = (): void => {
    this.corked = false;
    this.batched = 0;
    this.duplex.uncork();
  };

  /** Queues or writes one frame; frames after close() are dropped. */
  write(frame: Buffer): void {
    if (this.closed) return;
    if (this.blocked) {
      this.queue.push(frame);
      return;
    }
    if (!this.corked) {
      this.corked = true;
      this.duplex.cork();
      process.nextTick(this.uncork);
    }
    if (!this.duplex.write(frame)) this.block();
    if (++this.batched === BATCH) {
      // let the peer start on a full batch while this side writes the next
      this.batched = 0;
      this.duplex.uncork();
      this.duplex.cork();
    }
  }

  /** True while frames wait for the duplex to drain. */
  get congested(): boolean {
    return this.blocked;
  }

  /** Resolves when the duplex takes more without queueing (at once if it does now). */
  ready(): Promise<void> {
    if (!this.blocked || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Drops queued frames and releases everyone waiting in ready(). */
  close(): void {
    this.closed = true;
    this.queue.length = 0;
    this.release();
  }

  private block(): void {
    this.blocked = true;
    this.hooks.congestion?.(true);
  }

  private flush(): void {
    if (!this.blocked) return;
    let written = 0;
    let more = true;
    while (written < this.queue.length && more && !this.closed) more = this.duplex.write(this.queue[written++]);
    this.queue.splice(0, written);
    if (!more || this.closed) return;
    this.blocked = false;
    this.hooks.congestion?.(false);
    this.release();
  }

  private release(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
