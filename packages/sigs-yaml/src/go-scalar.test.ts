import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatGoFloat, goParseInt, goParseUint, resolvePlain, resolveTagged } from "./go-scalar.js";

describe("resolvePlain, as go-yaml v2 resolves unquoted scalars", () => {
  it.each([
    ["", null],
    ["~", null],
    ["Null", null],
    ["yes", true],
    ["Off", false],
    ["y", true],
    ["YES", true],
    ["yEs", "yEs"],
    ["42", { int: 42n }],
    ["-0x10", { int: -16n }],
    ["0o17", { int: 15n }],
    ["017", { int: 15n }],
    ["0b11", { int: 3n }],
    ["1_000", { int: 1000n }],
    ["08", { float: 8 }],
    ["18446744073709551615", { int: 18446744073709551615n }],
    ["+18446744073709551615", { float: 2 ** 64 }], // the float64 nearest to it
    ["1e400", "1e400"],
    [".5", { float: 0.5 }],
    ["-.5", { float: -0.5 }],
    [".Inf", { float: Infinity }],
    ["0x", "0x"],
    ["12:30", "12:30"],
    ["nofile", "nofile"],
  ])("%j", (text, expected) => {
    expect(resolvePlain(text)).toEqual(expected);
  });

  it("reads explicit core tags, or says why not", () => {
    expect(resolveTagged("int", "12")).toEqual({ int: 12n });
    expect(resolveTagged("float", "3")).toEqual({ float: 3 });
    expect(resolveTagged("str", "3")).toBe("3");
    expect(() => resolveTagged("int", "abc")).toThrow("yaml: cannot decode !!str `abc` as a !!int");
  });

  it("parses integers within Go's ranges only", () => {
    expect(goParseInt("9223372036854775807")).toBe(9223372036854775807n);
    expect(goParseInt("9223372036854775808")).toBeUndefined();
    expect(goParseInt("-9223372036854775808")).toBe(-9223372036854775808n);
    expect(goParseUint("+1")).toBeUndefined();
    expect(goParseUint("0")).toBe(0n);
  });
});

describe("formatGoFloat, as strconv.FormatFloat(f, 'g', -1, 32)", () => {
  it.each([
    [1.5, "1.5"],
    [0.1, "0.1"],
    [0.30000000000000004, "0.3"],
    [100000, "100000"],
    [1e6, "1e+06"],
    [123456789, "1.2345679e+08"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [1e-7, "1e-07"],
    [1e21, "1e+21"],
    [-2.5, "-2.5"],
    [1e39, "+Inf"],
    [-0, "-0"],
    [Number.NaN, "NaN"],
  ])("%d", (value, expected) => {
    expect(formatGoFloat(value, 32)).toBe(expected);
  });

  it("writes the shortest text that reads back as the same single-precision number", () => {
    fc.assert(
      fc.property(fc.float({ noNaN: true, noDefaultInfinity: true }), (value) => {
        const text = formatGoFloat(value, 32);
        expect(Math.fround(Number(text))).toBe(Math.fround(value));
        const digits = text.replace(/^-/, "").replace(/e.*$/, "").replace(".", "").replace(/^0+/, "");
        expect(digits.length).toBeLessThanOrEqual(9);
      }),
    );
  });
});
