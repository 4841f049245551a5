/**
 * Timeout signals shared by deadline: calls whose deadline is the same
 * millisecond (the builtin plugins a request goes through one after the
 * other, and requests started within that millisecond) share one
 * AbortController and one timer. An AbortController and a timer per call
 * cost a builtin plugin call more than all the rest of it (about 3 µs in
 * Node 20, and garbage for the collector; Go's context.WithTimeout is
 * cheap); a shared signal fires at its deadline just the same.
 *
 * The newest deadline's signal is kept after its last call returned, for
 * the next call in the same millisecond; older ones stop their timer as
 * soon as their last call returns, so that at most one idle timer waits.
 */
export class DeadlineSignal {
  readonly signal: AbortSignal;
  readonly #timer: NodeJS.Timeout;
  users = 1;
  /** The signal fired (read on every call: cheaper than AbortSignal's checked `aborted` getter). */
  fired = false;

  constructor(readonly deadline: number) {
    const controller = new AbortController();
    this.signal = controller.signal;
    this.#timer = setTimeout(
      () => {
        this.fired = true;
        controller.abort();
      },
      Math.max(0, deadline - Date.now()),
    );
    this.#timer.unref();
  }

  stop(): void {
    clearTimeout(this.#timer);
  }
}

export class DeadlineSignals {
  #newest: DeadlineSignal | undefined;

  /** The signal that aborts at `deadline` (ms since the epoch); hand it back with `release`. */
  acquire(deadline: number): DeadlineSignal {
    const newest = this.#newest;
    if (newest !== undefined && newest.deadline === deadline && !newest.fired) {
      newest.users++;
      return newest;
    }
    if (newest !== undefined && newest.users === 0) newest.stop();
    return (this.#newest = new DeadlineSignal(deadline));
  }

  /** Ends one call's use of a signal. */
  release(shared: DeadlineSignal): void {
    if (--shared.users === 0 && shared !== this.#newest) shared.stop();
  }
}
