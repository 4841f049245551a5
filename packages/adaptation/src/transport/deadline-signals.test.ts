import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DeadlineSignals } from "./deadline-signals.js";

describe("DeadlineSignals", () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it("gives calls with the same deadline one signal, one after the other or at once", () => {
    const signals = new DeadlineSignals();
    const first = signals.acquire(1_002_000);
    signals.release(first);
    const second = signals.acquire(1_002_000);
    const third = signals.acquire(1_002_000);
    expect(second.signal).toBe(first.signal);
    expect(third.signal).toBe(first.signal);
  });

  it("aborts at the deadline, not before", () => {
    const signals = new DeadlineSignals();
    const call = signals.acquire(1_002_000);
    vi.advanceTimersByTime(1_999);
    expect(call.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(call.signal.aborted).toBe(true);
  });

  it("stops an older deadline's timer once its calls are done, and keeps it while one runs", () => {
    const signals = new DeadlineSignals();
    const done = signals.acquire(1_002_000);
    signals.release(done);
    const running = signals.acquire(1_002_001);
    const later = signals.acquire(1_002_002);
    expect(later.signal).not.toBe(running.signal);
    vi.advanceTimersByTime(2_002);
    expect(done.signal.aborted).toBe(false); // stopped: nobody waits on it
    expect(running.signal.aborted).toBe(true); // still in use when its deadline passed
    expect(later.signal.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("does not hand out a signal that already fired", () => {
    const signals = new DeadlineSignals();
    const late = signals.acquire(999_000);
    vi.advanceTimersByTime(0);
    expect(late.signal.aborted).toBe(true);
    const again = signals.acquire(999_000);
    expect(again.signal).not.toBe(late.signal);
  });
});
