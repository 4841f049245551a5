import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { met, quantiles, recordResults, result } from "./results.js";

const base = { group: "adaptation", what: "CreateContainer, 1 plugin", unit: "µs", note: "2000 calls" };

describe("bench results", () => {
  let dir: string | undefined;
  afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

  it("appends each bench's results to the one file, as a JSON array", () => {
    dir = mkdtempSync(join(tmpdir(), "nri-bench-test-"));
    const file = join(dir, "results.json");
    recordResults([result({ ...base, ours: 90, go: 100, target: "<= 1.0x" })], file);
    recordResults([result({ ...base, what: "builtin plugin per call", ours: 1.2, go: 1, target: "<= 1.5 µs" })], file);
    const all = JSON.parse(readFileSync(file, "utf8"));
    expect(all.map((r: { what: string; ratio: number }) => [r.what, r.ratio])).toEqual([
      ["CreateContainer, 1 plugin", 0.9],
      ["builtin plugin per call", 1.2],
    ]);
  });

  it("judges a target on the ratio (x) or on our figure (a unit)", () => {
    expect(met(result({ ...base, ours: 90, go: 100, target: "<= 1.0x" }))).toBe(true);
    expect(met(result({ ...base, ours: 110, go: 100, target: "<= 1.0x" }))).toBe(false);
    expect(met(result({ ...base, ours: 140, go: 100, target: ">= 1.5x" }))).toBe(false);
    expect(met(result({ ...base, ours: 1.4, go: 1, target: "<= 1.5 µs" }))).toBe(true);
    expect(met(result({ ...base, ours: 1.4, go: null, target: "<= 1.0x" }))).toBe(null);
    expect(met(result({ ...base, ours: 1.4, go: 1, target: null }))).toBe(null);
  });

  it("refuses a malformed target instead of writing it", () => {
    expect(() =>
      recordResults([result({ ...base, ours: 1, go: 1, target: "1.0x or less" })], "/nonexistent/x.json"),
    ).toThrow('bench target "1.0x or less" is not "<= Nx", ">= Nx" or "<= N unit"');
  });

  it("keeps a distribution small: evenly spaced quantiles, both ends included", () => {
    const samples = Array.from({ length: 1000 }, (_, i) => 1000 - i);
    const q = quantiles(samples, 11);
    expect(q).toHaveLength(11);
    expect(q[0]).toBe(1);
    expect(q[5]).toBe(501);
    expect(q[10]).toBe(1000);
    expect(quantiles([])).toEqual([]);
  });
});
