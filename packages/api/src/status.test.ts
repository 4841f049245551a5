import { describe, expect, it } from "vitest";
import { Container, ContainerState } from "./gen/nri/pkg/api/v1alpha1/api.js";
import {
  type ContainerStatus,
  dateToNs,
  describeContainerStatus,
  formatDurationNs,
  formatTimestampNs,
  nsToDate,
  runDurationNs,
  sinceExitNs,
} from "./status.js";

const START = 1_767_225_601_000_000_000n; // 2026-01-01T00:00:01Z
const S = 1_000_000_000n;

function status(fields: Partial<ContainerStatus>): ContainerStatus {
  return Container.fromPartial(fields);
}

describe("timestamps", () => {
  it("reads Unix-epoch nanoseconds, not Go's year-1 base", () => {
    expect(nsToDate(START)?.toISOString()).toBe("2026-01-01T00:00:01.000Z");
    expect(nsToDate(START + 1_999_999n)?.toISOString()).toBe("2026-01-01T00:00:01.001Z");
    expect(nsToDate(0n)).toBeUndefined();
  });

  it("turns Dates and milliseconds into exact nanoseconds", () => {
    expect(dateToNs(new Date("2026-01-01T00:00:01Z"))).toBe(START);
    expect(dateToNs(1_767_225_601_000.5)).toBe(START + 500_000n);
    expect(dateToNs(0)).toBe(0n);
    expect(dateToNs(-1.5)).toBe(-1_500_000n);
    expect(() => dateToNs(new Date("not a date"))).toThrow(new RangeError("not a valid time: Invalid Date"));
    expect(() => dateToNs(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });

  it("writes RFC 3339 with every nanosecond digit", () => {
    expect(formatTimestampNs(START + 123_456_789n)).toBe("2026-01-01T00:00:01.123456789Z");
    expect(formatTimestampNs(START)).toBe("2026-01-01T00:00:01.000000000Z");
    expect(formatTimestampNs(1n)).toBe("1970-01-01T00:00:00.000000001Z");
    expect(formatTimestampNs(-1n)).toBe("1969-12-31T23:59:59.999999999Z");
    expect(formatTimestampNs(0n)).toBeUndefined();
  });

  it("round-trips millisecond times", () => {
    const now = new Date();
    expect(nsToDate(dateToNs(now))).toEqual(now);
  });
});

describe("durations", () => {
  it("measures how long the container ran", () => {
    expect(runDurationNs(status({ startedAt: START, finishedAt: START + 5n * S }))).toBe(5n * S);
    expect(runDurationNs(status({ startedAt: START }), START + 7n)).toBe(7n);
    expect(runDurationNs(status({ startedAt: START }), new Date("2026-01-01T00:01:01Z"))).toBe(60n * S);
    expect(runDurationNs(status({}))).toBeUndefined();
  });

  it("measures the time since exit", () => {
    expect(sinceExitNs(status({ finishedAt: START }), START + 3n * S)).toBe(3n * S);
    expect(sinceExitNs(status({ startedAt: START }))).toBeUndefined();
  });

  it.each([
    [0n, "0s"],
    [12n, "12ns"],
    [1_500n, "1.5µs"],
    [800_000n, "800µs"],
    [250_000_000n, "250ms"],
    [1_500_000n, "1.5ms"],
    [S, "1s"],
    [1_500_000_000n, "1.5s"],
    [65n * S, "1m5s"],
    [3600n * S, "1h0m0s"],
    [3723n * S + 500_000_000n, "1h2m3.5s"],
    [-1_500_000_000n, "-1.5s"],
  ])("formats %d ns as %j, as Go's time.Duration does", (ns, text) => {
    expect(formatDurationNs(ns)).toBe(text);
  });
});

describe("describeContainerStatus", () => {
  const now = START + 65n * S + 400_000_000n;

  it.each<[Partial<ContainerStatus>, string]>([
    [{ state: ContainerState.CONTAINER_CREATED, createdAt: START }, "created"],
    [{ state: ContainerState.CONTAINER_RUNNING, startedAt: START }, "running for 1m5s"],
    [{ state: ContainerState.CONTAINER_RUNNING }, "running"],
    [{ state: ContainerState.CONTAINER_PAUSED, startedAt: START }, "paused"],
    [
      {
        state: ContainerState.CONTAINER_STOPPED,
        finishedAt: START,
        exitCode: 137,
        statusReason: "OOMKilled",
        statusMessage: "memory limit exceeded",
      },
      "exited 137 (OOMKilled): memory limit exceeded",
    ],
    [{ state: ContainerState.CONTAINER_STOPPED, finishedAt: START, exitCode: 127 }, "exited 127 (command not found)"],
    [{ state: ContainerState.CONTAINER_STOPPED, finishedAt: START, exitCode: 0 }, "exited 0 (success)"],
    [{ state: ContainerState.CONTAINER_STOPPED, exitCode: 3, statusMessage: "bad config" }, "exited 3: bad config"],
    [{ state: ContainerState.CONTAINER_STOPPED, statusReason: "Completed" }, "exited 0 (Completed)"],
    [{ state: ContainerState.CONTAINER_STOPPED }, "stopped"],
    [{ state: ContainerState.CONTAINER_UNKNOWN }, "unknown"],
    [{ state: ContainerState.UNRECOGNIZED }, "unknown"],
  ])("%o → %j", (fields, text) => {
    expect(describeContainerStatus(status(fields), now)).toBe(text);
  });

  it("rounds short running times to milliseconds", () => {
    const running = status({ state: ContainerState.CONTAINER_RUNNING, startedAt: START });
    expect(describeContainerStatus(running, START + 1_234_567n)).toBe("running for 1ms");
    expect(describeContainerStatus(running, START + 999_600_000n)).toBe("running for 1s");
  });
});
