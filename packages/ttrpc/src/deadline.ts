/** setTimeout's limit; a longer wait is treated as no deadline at all (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Milliseconds since the epoch of a deadline given as a Date or a number. */
export function deadlineMs(deadline: Date | number): number {
  return typeof deadline === "number" ? deadline : deadline.getTime();
}

const INT64_MAX = 2n ** 63n - 1n;

/** Nanoseconds from now until `ms` (since the epoch), as sent in timeout_nano (an int64). */
export function timeoutNanoUntil(ms: number): bigint {
  const nanos = BigInt(Math.round((ms - Date.now()) * 1e6));
  return nanos > INT64_MAX ? INT64_MAX : nanos;
}

/**
 * Calls `fire` after `ms` milliseconds; returns the timer to clear, or
 * undefined when the wait is too long for a timer (then it never fires).
 */
export function startTimer(ms: number, fire: () => void): NodeJS.Timeout | undefined {
  if (ms > MAX_TIMER_MS) return undefined;
  const timer = setTimeout(fire, Math.max(0, ms));
  timer.unref();
  return timer;
}
