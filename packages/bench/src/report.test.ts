import { describe, expect, it } from "vitest";
import { type LineRun, type Machine, plotName, renderReport, unexplained } from "./report.js";
import { type BenchResult, result } from "./results.js";

const machine: Machine = {
  cpus: "2 × Test CPU",
  memory: "24 GiB",
  os: "Linux 6.1",
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
  const run = (line: string, node: string, of: BenchResult[] = results): LineRun => ({ line, node, results: of });
  const text = renderReport([run("26", "26.12.1")], machine, "bench-plots");

  it("has a row per figure with ours, Go's, the ratio, whether it is met and the target", () => {
    expect(text).toContain("| what | unit | Node 26 | Go | 26 / Go |  | target | how |");
    expect(text).toContain(
      "| CreateContainer, 5 no-op plugins | µs | 950 | 1000 | 0.95 | met | ≤ 1.0x | median of 3 |",
    );
    expect(text).toContain("| Synchronize \\| 10,000 containers | ms | 90.0 | 60.0 | 1.50 | **not met** | ≤ 1.0x |  |");
    expect(text).toContain("| hook p99 | µs | 120 | 100 | 1.20 | – | – | after warm-up |");
    expect(text).toContain("- toolchains: Node 26.12.1, go version go1.26.0 linux/amd64");
    expect(text).toContain("- targets met: 1 of 2 on Node 26");
  });

  it("puts each line's run in columns of its own, the Go peer measured in that run beside it", () => {
    const slower = results.map((r) => result({ ...r, ours: r.ours * 2, note: "the 24 run" }));
    const both = renderReport([run("26", "26.12.1"), run("24", "24.22.3", slower)], machine, "bench-plots");
    expect(both).toContain("| what | unit | Node 26 | Go | 26 / Go |  | Node 24 | Go | 24 / Go |  | target | how |");
    expect(both).toContain(
      "| CreateContainer, 5 no-op plugins | µs | 950 | 1000 | 0.95 | met | 1900 | 1000 | 1.90 | **not met** | ≤ 1.0x | median of 3 |",
    );
    expect(both).toContain("- toolchains: Node 26.12.1 and Node 24.22.3, go version");
    expect(both).toContain("- targets met: 1 of 2 on Node 26, 0 of 2 on Node 24");
    // a figure only one run has
    const extra = result({ group: "stub", what: "only 24", ours: 1, go: 1, unit: "ms", target: null, note: "" });
    const partial = renderReport([run("26", "26.12.1"), run("24", "24.22.3", [...results, extra])], machine, "p");
    expect(partial).toContain("| only 24 | ms | – | – | – | – | 1.00 | 1.00 | 1.00 | – | – |  |");
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
    const report = renderReport([run("26", "26.12.1", [untargeted, ...results])], machine, "bench-plots");
    expect(report.indexOf("## adaptation")).toBeLessThan(report.indexOf("## mux"));
    expect(report.indexOf("## stub")).toBeGreaterThan(report.indexOf("## mux"));
  });

  it("ends with the hand-kept explanations, then lists the rows not met that they do not name", () => {
    const slower = results.map((r) => result({ ...r, ours: r.ours * 2 }));
    const runs = [run("26", "26.12.1"), run("24", "24.22.3", slower)];
    const explained = "## Targets not met\n\n`adaptation: Synchronize | 10,000 containers`: the heap.\n";
    const report = renderReport(runs, machine, "bench-plots", explained);
    expect(report).toContain("## Targets not met\n\n`adaptation: Synchronize | 10,000 containers`: the heap.");
    expect(report.indexOf("## Targets not met")).toBeGreaterThan(report.indexOf("## stub"));
    // not met on 24 only, and not named: listed with its line and ratio
    expect(report).toContain("### Not met and not explained yet");
    expect(report).toContain("- `adaptation: CreateContainer, 5 no-op plugins` (Node 24 1.90x)");
    expect(unexplained(runs, explained)).toEqual(["`adaptation: CreateContainer, 5 no-op plugins` (Node 24 1.90x)"]);
    // a row not met on both lines is listed once, with both; a target on ours gives its figure
    const absolute = result({ group: "g", what: "w", ours: 2, go: null, unit: "µs", target: "<= 1.5 µs", note: "" });
    expect(unexplained([run("26", "26.12.1", [absolute]), run("24", "24.22.3", [absolute])], "")).toEqual([
      "`g: w` (Node 26 2.00 µs, Node 24 2.00 µs)",
    ]);
  });

  it("says nothing of explanations when every target is met and none are kept", () => {
    const met = results.filter((r) => r.what.startsWith("CreateContainer") || r.target === null);
    const report = renderReport([run("26", "26.12.1", met)], machine, "bench-plots");
    expect(report).not.toContain("not explained");
    expect(report.trimEnd().endsWith(")")).toBe(true);
  });
});
