import { describe, expect, it } from "vitest";
import { isGoYamlTimestamp } from "./go-timestamp.js";

describe("isGoYamlTimestamp, go-yaml v2's four layouts through Go's time.Parse", () => {
  it.each([
    ["2026-01-15", true],
    ["2026-1-5", true],
    ["2024-02-29", true],
    ["2023-02-29", false],
    ["2026-13-01", false],
    ["2026-01-15T10:00:00Z", true],
    ["2026-01-15t10:00:00.123456789123+01:00", true],
    ["2026-01-15T1:2:3,5-23:59", true],
    ["2026-01-15T10:00:00", false],
    ["2026-01-15T24:00:00Z", false],
    ["2026-01-15T10:00:00+25:00", false],
    ["2026-01-15 10:00:00", true],
    ["2026-01-15    1:2:3.5", true],
    ["2026-01-15 10:00:00Z", false],
    ["12026-01-15", false],
    ["2026-01-15x", false],
    ["2026-1-123", false],
  ])("%s: %s", (text, timestamp) => {
    expect(isGoYamlTimestamp(text)).toBe(timestamp);
  });
});
