/** How a stub retries after losing the runtime. */
export interface ReconnectOptions {
  /** The first wait, in milliseconds; default 500. */
  initialDelayMs?: number;
  /** The longest wait; default 30 000. */
  maxDelayMs?: number;
  /** Each wait is the previous one times this; default 2. */
  factor?: number;
}

/** The wait before retry number `attempt` (0 for the first retry). */
export function backoffDelay(attempt: number, options: ReconnectOptions = {}): number {
  const initial = options.initialDelayMs ?? 500;
  const max = options.maxDelayMs ?? 30_000;
  const factor = options.factor ?? 2;
  return Math.min(max, initial * factor ** attempt);
}

/** Resolves after `ms`, or at once when `signal` fires. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
