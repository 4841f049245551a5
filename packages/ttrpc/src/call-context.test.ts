import { ServerError, Status } from "nice-grpc-common";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CallScope } from "./call-context.js";

describe("CallScope", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("has no deadline without timeout_nano", () => {
    const scope = new CallScope("peer", [], 0n);
    expect(scope.context.deadline).toBeUndefined();
    expect(scope.abortReason).toBeUndefined();
  });

  it("aborts with DeadlineExceeded when its timer fires, even before the clock reaches the deadline", () => {
    // Timers and Date.now() do not agree to the millisecond: the deadline
    // timer may fire while Date.now() is still just short of the deadline.
    // Faking only setTimeout makes that moment happen on purpose.
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    const scope = new CallScope("peer", [], 10_000_000_000n);
    const signal = scope.context.signal;
    vi.advanceTimersByTime(10_000);
    expect(signal.aborted).toBe(true);
    expect(scope.abortReason).toBeInstanceOf(ServerError);
    expect(scope.abortReason).toMatchObject({ code: Status.DEADLINE_EXCEEDED, details: "context deadline exceeded" });
  });

  it("aborts with Cancelled when the call is abandoned", () => {
    const scope = new CallScope("peer", [], 0n);
    const signal = scope.context.signal;
    scope.cancel();
    expect(signal.aborted).toBe(true);
    expect(scope.abortReason).toMatchObject({ code: Status.CANCELLED, details: "ttrpc: connection closed" });
  });
});
