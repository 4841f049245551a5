import { describe, expect, it } from "vitest";
import { type Machine, plotName, renderReport } from "./report.js";
import { result } from "./results.js";

const machine: Machine = {
  cpus: "2 × Test CPU",
  memory: "24 GiB",
  os: "Linux 6.1",
  node: "20.20.0",
  go: "go version go1.26.0 linux/amd64",
  load: { min: 1.5, max: 6.25, mean: 3 },
  started: "2026-12-01T19:00:00Z",
  seconds: 301,
};

describe("BENCHMARKS.md", () => {
  const results = [
    result({
      group: "adaptation",
      what: "CreateContainer, 5 no-op plugins",
      ours: 950,
      go: 1000,
      unit: "µs",
      target: "<= 1.0x",
      note: "median of 3",
    }),
    result({
      group: "adaptation",
      what: "Synchronize | 10,000 containers",
      ours: 90,
      go: 60,
      unit: "ms",
      target: "<= 1.0x",
      note: "",
    }),
    result({
      group: "stub",
      what: "hook p99",
      ours: 120,
      go: 100,
      unit: "µs",
      target: null,
      note: "after warm-up",
      distribution: { unit: "µs", ours: [1, 2], go: [1, 3] },
    }),
  ];
  const text = renderReport(results, machine, "bench-plots");

  it("has a row per figure with ours, Go's, the ratio, the target and whether it is met", () => {
    expect(text).toContain(
      "| CreateContainer, 5 no-op plugins | 950 | 1000 | µs | 0.95 | ≤ 1.0x | met | median of 3 |",
    );
    expect(text).toContain("| Synchronize \\| 10,000 containers | 90.0 | 60.0 | ms | 1.50 | ≤ 1.0x | **not met** |  |");
    expect(text).toContain("| hook p99 | 120 | 100 | µs | 1.20 | – | – | after warm-up |");
    expect(text).toContain("- targets met: 1 of 2");
  });

  it("states the machine and the load, and links each plot", () => {
    expect(text).toContain("- machine: 2 × Test CPU, 24 GiB, Linux 6.1");
    expect(text).toContain("- load average (1 min) during the run: 1.5 to 6.3, mean 3.0");
    expect(text).toContain("## stub");
    expect(text).toContain("](bench-plots/stub-hook-p99.svg)");
    expect(plotName(results[1]!)).toBe("adaptation-synchronize-10-000-containers.svg");
  });

  it("puts the groups with targets first", () => {
    const untargeted = result({ group: "mux", what: "stream", ours: 2, go: 1, unit: "MiB/s", target: null, note: "" });
    const report = renderReport([untargeted, ...results], machine, "bench-plots");
    expect(report.indexOf("## adaptation")).toBeLessThan(report.indexOf("## mux"));
    expect(report.indexOf("## stub")).toBeGreaterThan(report.indexOf("## mux"));
  });
});
