import { describe, expect, it } from "vitest";
import { backoffDelay, sleep } from "./backoff.js";

describe("backoffDelay", () => {
  it("grows by the factor from the initial delay up to the maximum", () => {
    expect([0, 1, 2, 3, 10].map((attempt) => backoffDelay(attempt))).toEqual([500, 1000, 2000, 4000, 30_000]);
    const options = { initialDelayMs: 10, factor: 3, maxDelayMs: 100 };
    expect([0, 1, 2, 3].map((attempt) => backoffDelay(attempt, options))).toEqual([10, 30, 90, 100]);
  });
});

describe("sleep", () => {
  it("ends early when its signal fires, or at once when it has fired", async () => {
    const controller = new AbortController();
    const slept = sleep(60_000, controller.signal);
    controller.abort();
    await slept;
    await sleep(60_000, controller.signal);
  });
});
