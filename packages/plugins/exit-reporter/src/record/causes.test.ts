import { describe, expect, it } from "vitest";
import { CAUSE_LIMITS, CauseBook, causeApplies, causeProblem, type DeclaredCause } from "./causes.js";
import { Source } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";

const evicted: DeclaredCause = {
  declaredBy: "10-evictor",
  source: Source.SOURCE_PLUGIN,
  reason: "Evicted",
  message: "",
  exitCodes: [],
};

describe("causes", () => {
  it("apply to any end but a clean one, or to the codes they name", () => {
    expect([0, 1, 137, undefined].map((code) => causeApplies(evicted, code))).toEqual([false, true, true, true]);
    const only = { ...evicted, exitCodes: [137, 143] };
    expect([0, 1, 137, 143, undefined].map((code) => causeApplies(only, code))).toEqual([
      false,
      false,
      true,
      true,
      false,
    ]);
  });

  it("are checked", () => {
    expect(causeProblem(evicted)).toBeUndefined();
    expect(causeProblem({ ...evicted, declaredBy: "" })).toMatch(/^declared_by: expected a plugin name/);
    expect(causeProblem({ ...evicted, reason: "x".repeat(65) })).toMatch(/^reason: expected a short CamelCase word/);
    expect(causeProblem({ ...evicted, message: "m".repeat(1025) })).toBe("message: at most 1024 characters, got 1025");
    const codes = (n: number) => Array.from({ length: n }, (_, i) => i);
    expect(causeProblem({ ...evicted, exitCodes: codes(CAUSE_LIMITS.exitCodes) })).toBeUndefined();
    expect(causeProblem({ ...evicted, exitCodes: codes(CAUSE_LIMITS.exitCodes + 1) })).toBe(
      `exit_codes: at most ${CAUSE_LIMITS.exitCodes}, got ${CAUSE_LIMITS.exitCodes + 1}`,
    );
  });
});

describe("CauseBook", () => {
  it("keeps causes until taken, newest first, one per declarer", () => {
    const book = new CauseBook({ ttlMs: 1000, maxContainers: 10 });
    expect(book.attach("c1", evicted)).toEqual({ replaced: false });
    expect(book.attach("c1", { ...evicted, declaredBy: "20-other", reason: "Preempted" })).toEqual({ replaced: false });
    expect(book.attach("c1", { ...evicted, message: "again" })).toEqual({ replaced: true });
    expect(book.take("c1").map((cause) => [cause.declaredBy, cause.message])).toEqual([
      ["10-evictor", "again"],
      ["20-other", ""],
    ]);
    expect(book.take("c1")).toEqual([]);
  });

  it("forgets causes after their time to live", () => {
    let now = 0;
    const book = new CauseBook({ ttlMs: 1000, maxContainers: 10, now: () => now });
    book.attach("c1", evicted);
    book.attach("c2", evicted, 5000);
    now = 1000;
    expect(book.take("c1")).toEqual([]);
    expect(book.take("c2")).toEqual([evicted]);
  });

  it("holds causes for at most maxContainers containers, forgetting the oldest", () => {
    const book = new CauseBook({ ttlMs: 1000, maxContainers: 2 });
    book.attach("c1", evicted);
    book.attach("c2", evicted);
    expect(book.attach("c3", evicted)).toEqual({ replaced: false, forgotten: { causes: 1, containers: ["c1"] } });
    expect(book.size).toBe(2);
    book.forget("c2");
    expect(book.take("c3")).toEqual([evicted]);
    expect(book.size).toBe(0);
  });

  it("holds at most maxPerContainer causes a container, forgetting its oldest", () => {
    const book = new CauseBook({ ttlMs: 1000, maxContainers: 10, maxPerContainer: 2 });
    const by = (declaredBy: string) => ({ ...evicted, declaredBy });
    book.attach("c1", by("10-a"));
    book.attach("c1", by("20-b"));
    expect(book.attach("c1", by("30-c"))).toEqual({ replaced: false, forgotten: { causes: 1, containers: [] } });
    expect(book.attach("c1", by("30-c"))).toEqual({ replaced: true });
    expect(book.take("c1").map((cause) => cause.declaredBy)).toEqual(["30-c", "20-b"]);
  });

  it("holds at most maxBytes of causes, forgetting the oldest containers' first, and never the new one", () => {
    const big = { ...evicted, message: "m".repeat(1000) };
    const size = "10-evictor".length + "Evicted".length + 1000;
    const book = new CauseBook({ ttlMs: 1000, maxContainers: 10, maxBytes: 2 * size });
    book.attach("c1", big);
    book.attach("c2", big);
    expect(book.bytes).toBe(2 * size);
    expect(book.attach("c3", big)).toEqual({ replaced: false, forgotten: { causes: 1, containers: ["c1"] } });
    expect([book.size, book.bytes]).toEqual([2, 2 * size]);
    const huge = { ...big, declaredBy: "20-other", exitCodes: [1, 2, 3] };
    expect(book.attach("c3", huge)).toEqual({ replaced: false, forgotten: { causes: 2, containers: ["c2"] } });
    expect(book.take("c3")).toEqual([huge]);
    expect([book.size, book.bytes]).toEqual([0, 0]);
  });
});
