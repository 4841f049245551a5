import { ServerError, Status } from "nice-grpc-common";
import { CallMetadata } from "./call-metadata.js";
import { startTimer } from "./deadline.js";
import type { TtrpcCallContext } from "./definition.js";
import type { KeyValue } from "./gen/ttrpc/request.js";
import { metadataFromPairs } from "./metadata.js";
import { deadlineExceeded } from "./status.js";

const SCOPE = Symbol("ttrpc call scope");

/**
 * `context.signal`: made on first read, because an AbortSignal is costly and
 * most handlers never look at it. It is an own enumerable property, so that
 * middleware may spread the context (which reads it).
 */
const SIGNAL: PropertyDescriptor = {
  get(this: { [SCOPE]: CallScope }) {
    return this[SCOPE].signal();
  },
  enumerable: true,
  configurable: true,
};

function sendHeader(): void {}

/**
 * One server call's context (nice-grpc's CallContext plus the deadline) and
 * what ends it. `context.signal` fires when the deadline sent by the client
 * (timeout_nano) passes, with a DeadlineExceeded ServerError as reason, or
 * when the call is abandoned, e.g. because its connection closed
 * (Cancelled). ttrpc has no response headers or trailers: `header` and
 * `trailer` exist for nice-grpc compatibility and are never sent.
 */
export class CallScope {
  readonly context: TtrpcCallContext;
  /** When the deadline passes, in milliseconds since the epoch; undefined without one. */
  private readonly expiresAt: number | undefined;
  private controller: AbortController | undefined;
  private timer: NodeJS.Timeout | undefined;
  private cancelled: ServerError | undefined;
  private over = false;

  constructor(peer: string, pairs: readonly KeyValue[], timeoutNano: bigint) {
    if (timeoutNano !== 0n) this.expiresAt = Date.now() + Number(timeoutNano) / 1e6;
    const context = {
      peer,
      deadline: this.expiresAt === undefined ? undefined : new Date(this.expiresAt),
      metadata: pairs.length === 0 ? new CallMetadata() : metadataFromPairs(pairs),
      header: new CallMetadata(),
      trailer: new CallMetadata(),
      sendHeader,
      [SCOPE]: this,
    };
    this.context = Object.defineProperty(context, "signal", SIGNAL) as typeof context & { signal: AbortSignal };
  }

  /** Why the call's signal fired (or would have, had it been made), if it did. */
  get abortReason(): ServerError | undefined {
    if (this.cancelled !== undefined) return this.cancelled;
    if (this.expiresAt !== undefined && Date.now() >= this.expiresAt) return deadlineExceeded();
    return undefined;
  }

  /** The call is over: stops the deadline timer. */
  finish(): void {
    this.over = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
  }

  /** The call is abandoned (by default because its connection closed): the signal fires. */
  cancel(reason = new ServerError(Status.CANCELLED, "ttrpc: connection closed")): void {
    this.finish();
    this.cancelled ??= reason;
    this.controller?.abort(this.cancelled);
  }

  /** The call's signal, made on first use. */
  signal(): AbortSignal {
    if (this.controller !== undefined) return this.controller.signal;
    const controller = (this.controller = new AbortController());
    const reason = this.abortReason;
    if (reason !== undefined) controller.abort(reason);
    else if (this.expiresAt !== undefined && !this.over) {
      // The timer may fire a moment before Date.now() reaches expiresAt, so
      // it records its reason rather than leaving abortReason to recompute it.
      this.timer = startTimer(this.expiresAt - Date.now(), () => {
        this.cancelled ??= deadlineExceeded();
        controller.abort(this.cancelled);
      });
    }
    return controller.signal;
  }
}
