import { describe, expect, it } from "vitest";
import { OUTPUT_KEPT, Recorder } from "./recorder.js";

describe("a record's output", () => {
  it("keeps a plugin's first 1,000 lines and says how many more there were", () => {
    const recorder = new Recorder(new Set());
    for (let i = 1; i <= 1500; i++) recorder.current.addOutput("10-loud", `line ${i}`);
    recorder.current.addOutput("20-quiet", "hello");
    const { output } = recorder.next();
    expect(output).toHaveLength(OUTPUT_KEPT.lines + 2);
    expect(output.slice(0, 2)).toEqual([
      { plugin: "10-loud", text: "line 1" },
      { plugin: "10-loud", text: "line 2" },
    ]);
    expect(output.slice(-3)).toEqual([
      { plugin: "10-loud", text: "line 1000" },
      { plugin: "20-quiet", text: "hello" },
      { plugin: "10-loud", text: "… 500 more lines (4500 bytes) not kept: over 1000 lines or 1048576 bytes" },
    ]);
    // the next record starts afresh
    recorder.current.addOutput("10-loud", "again");
    expect(recorder.next().output).toEqual([{ plugin: "10-loud", text: "again" }]);
  });

  it("keeps at most 1 MiB of it", () => {
    const recorder = new Recorder(new Set());
    const line = "x".repeat(64 * 1024);
    for (let i = 0; i < 20; i++) recorder.current.addOutput("10-loud", line);
    const { output } = recorder.next();
    expect(output).toHaveLength(17);
    expect(output.at(-1)?.text).toBe("… 4 more lines (262144 bytes) not kept: over 1000 lines or 1048576 bytes");
  });
});
