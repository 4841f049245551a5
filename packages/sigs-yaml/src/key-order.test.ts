import { describe, expect, it } from "vitest";
import { sortYamlKeys, yamlKeyLess } from "./key-order.js";

describe("go-yaml v2's key order", () => {
  // The orders Go's go-yaml v2.4.0 gives (packages/conformance checks thousands more).
  it("compares runs of digits by value (other runes count as 0), letters last, a prefix first", () => {
    expect(sortYamlKeys(["b", "a10", "a2", "a", "_x", "B", "a01", "a1", "10", "9", "é", "-"])).toEqual([
      "-",
      "_x",
      "9",
      "10",
      "B",
      "a",
      "a1",
      "a01",
      "a2",
      "a10",
      "b",
      "é",
    ]);
  });

  it("compares letters of Go's Unicode tables, not the engine's", () => {
    // U+141EA: a letter since Unicode 16 (Node.js 22 and later), none in Go's Unicode 15.0; so it sorts before digits as other non-letters do.
    expect(yamlKeyLess("\u{141ea}", "1")).toBe(true);
    expect(yamlKeyLess("\u{141ea}", "a")).toBe(true);
  });

  it("wraps runs of digits as Go's int64 does", () => {
    expect(sortYamlKeys(["a1", "a9223372036854775808"])).toEqual(["a9223372036854775808", "a1"]);
  });
});
