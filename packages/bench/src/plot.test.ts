import { describe, expect, it } from "vitest";
import { distributionSvg } from "./plot.js";

describe("distribution plot", () => {
  it("draws one line per side with a point per quantile, titled and escaped", () => {
    const svg = distributionSvg("stub: hook <p99>", "µs", { ours: [10, 20, 30], go: [12, 24, 400] });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain("stub: hook &lt;p99&gt;");
    const lines = [...svg.matchAll(/<polyline [^>]*points="([^"]+)"/g)].map((m) => m[1]!.split(" ").length);
    expect(lines).toEqual([3, 3]);
    expect(svg).toContain(">nri-ts</text>");
    expect(svg).toContain(">Go</text>");
    expect(svg).toContain("µs (log scale)");
    expect(svg).toContain(">p50 20.0, p99 30.0</text>");
    expect(svg).toContain(">p50 24.0, p99 400</text>");
  });

  it("refuses to plot nothing", () => {
    expect(() => distributionSvg("empty", "µs", { ours: [], go: [] })).toThrow("plot empty: no positive samples");
  });
});
