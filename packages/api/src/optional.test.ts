import { describe, expect, it } from "vitest";
import { OptionalFileMode, OptionalInt, OptionalInt64, OptionalUInt64 } from "./gen/nri/pkg/api/v1alpha1/api.js";
import {
  optionalBool,
  optionalFileMode,
  optionalInt,
  optionalInt32,
  optionalInt64,
  optionalRepeatedString,
  optionalString,
  optionalUInt32,
  optionalUInt64,
} from "./optional.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

describe("Optional wrappers", () => {
  it("wrap plain values, numbers and bigints alike", () => {
    expect(optionalInt64(5)).toEqual({ value: 5n });
    expect(optionalInt64(5n)).toEqual({ value: 5n });
    expect(optionalUInt64(2n ** 64n - 1n)).toEqual({ value: 18446744073709551615n });
    expect(optionalInt(-1000)).toEqual({ value: -1000n });
    expect(optionalInt32(-1)).toEqual({ value: -1 });
    expect(optionalUInt32(0xffff_ffff)).toEqual({ value: 0xffff_ffff });
    expect(optionalBool(false)).toEqual({ value: false });
    expect(optionalString("")).toEqual({ value: "" });
    expect(optionalFileMode(0o640)).toEqual({ value: 0o640 });
  });

  it("encode as the wire expects: a present wrapper even for zero, 10-byte negatives", () => {
    expect(hex(OptionalInt64.encode(optionalInt64(0)).finish())).toBe("");
    expect(hex(OptionalInt64.encode(optionalInt64(-1)).finish())).toBe("08ffffffffffffffffff01");
    expect(hex(OptionalInt.encode(optionalInt(-500)).finish())).toBe("088cfcffffffffffffff01");
    expect(hex(OptionalUInt64.encode(optionalUInt64(2n ** 64n - 1n)).finish())).toBe("08ffffffffffffffffff01");
    expect(hex(OptionalFileMode.encode(optionalFileMode(0o666)).finish())).toBe("08b603");
  });

  it("copy repeated strings", () => {
    const lines = ["L3:0=ff"];
    const wrapped = optionalRepeatedString(lines);
    lines.push("MB:0=50");
    expect(wrapped).toEqual({ value: ["L3:0=ff"] });
  });

  it("reject values outside their type with a RangeError", () => {
    expect(() => optionalInt64(2n ** 63n)).toThrow(
      new RangeError("expected an int64, got 9223372036854775808 (out of range)"),
    );
    expect(() => optionalInt64(-(2n ** 63n) - 1n)).toThrow(RangeError);
    expect(() => optionalUInt64(-1n)).toThrow(new RangeError("expected a uint64, got -1 (out of range)"));
    expect(() => optionalInt64(Number.NaN)).toThrow(new RangeError("expected an int64, got NaN"));
    expect(() => optionalInt64(2 ** 53)).toThrow(
      new RangeError("expected an int64, got 9007199254740992 (beyond 2^53 a number is inexact; pass a bigint)"),
    );
    expect(() => optionalInt32(2 ** 31)).toThrow(new RangeError("expected an int32, got 2147483648"));
    expect(() => optionalUInt32(-1)).toThrow(new RangeError("expected a uint32, got -1"));
    expect(() => optionalFileMode(0.5)).toThrow(new RangeError("expected a uint32, got 0.5"));
  });
});
