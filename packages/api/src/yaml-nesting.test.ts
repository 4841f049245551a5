import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_YAML_NESTING, yamlMayNestDeeperThan } from "./yaml-nesting.js";

describe("yamlMayNestDeeperThan", () => {
  it("passes ordinary annotations and configs", () => {
    expect(yamlMayNestDeeperThan("[ plugin-a, plugin-b ]")).toBe(false);
    expect(yamlMayNestDeeperThan("- type: RLIMIT_NOFILE\n  soft: 1024\n  hard: 4096\n")).toBe(false);
    expect(yamlMayNestDeeperThan("events: [CreateContainer, StopContainer]\nlogFile: /tmp/x\n")).toBe(false);
  });

  it("refuses deep flow and block nesting", () => {
    expect(yamlMayNestDeeperThan("[".repeat(MAX_YAML_NESTING + 1))).toBe(true);
    expect(yamlMayNestDeeperThan(`${"[".repeat(MAX_YAML_NESTING)}${"]".repeat(MAX_YAML_NESTING)}`)).toBe(false);
    expect(yamlMayNestDeeperThan("- ".repeat(MAX_YAML_NESTING + 1))).toBe(true);
    expect(yamlMayNestDeeperThan(`${" ".repeat(MAX_YAML_NESTING + 1)}x`)).toBe(true);
  });

  it("never under-counts flow nesting", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("[", "]", "{", "}", "a", ",", " ", "\n")), (chars) => {
        const text = chars.join("");
        let depth = 0;
        let deepest = 0;
        for (const c of text) {
          if (c === "[" || c === "{") deepest = Math.max(deepest, ++depth);
          else if ((c === "]" || c === "}") && depth > 0) depth--;
        }
        if (deepest > 5) expect(yamlMayNestDeeperThan(text, 5)).toBe(true);
      }),
    );
  });
});
