import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatBytes, parseDuration, parseQuantity } from "./quantity.js";

describe("parseQuantity", () => {
  it.each([
    ["512", 512n],
    ["256Mi", 268435456n],
    ["1Gi", 1073741824n],
    ["1.5Gi", 1610612736n],
    ["1G", 1000000000n],
    ["2k", 2000n],
    ["-1", -1n],
    ["0", 0n],
    ["8Ei", 8n << 60n],
  ])("%s is %s", (text, value) => {
    expect(parseQuantity(text)).toBe(value);
  });

  it.each(["", "Mi", "1.5", "0.1Ki", "12Q", "1 Gi", "--1", "1e3", "0x10"])("refuses %j", (text) => {
    expect(parseQuantity(text)).toBeUndefined();
  });

  it("reads back what formatBytes writes", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 63n) - 1n }), (value) => {
        expect(parseQuantity(formatBytes(value))).toBe(value);
      }),
    );
  });

  it("never throws", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const value = parseQuantity(text);
        expect(value === undefined || typeof value === "bigint").toBe(true);
      }),
    );
  });
});

describe("formatBytes", () => {
  it("uses the largest exact binary unit", () => {
    expect([536870912n, 1024n, 1000n, 3n << 30n, 0n].map(formatBytes)).toEqual(["512Mi", "1Ki", "1000", "3Gi", "0"]);
  });
});

describe("parseDuration", () => {
  it("reads ms, s, m and h", () => {
    expect(["250ms", "2s", "1.5s", "1m", "1h"].map(parseDuration)).toEqual([250, 2000, 1500, 60000, 3600000]);
  });

  it("refuses durations without a unit", () => {
    expect(parseDuration("100")).toBeUndefined();
  });
});
