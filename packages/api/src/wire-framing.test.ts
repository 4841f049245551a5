import { describe, expect, it } from "vitest";
import { checkFraming, FramingError } from "./wire-framing.js";

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.replaceAll(" ", ""), "hex"));

function check(hex: string): void {
  const input = bytes(hex);
  checkFraming(input, 0, input.length);
}

describe("checkFraming", () => {
  it("accepts every wire type", () => {
    // 1: varint 150; 2: "hi"; 3: fixed64; 4: fixed32; 5: a group holding 1: varint 1; 6: empty bytes.
    expect(() => check("08 9601  12 02 6869  19 0102030405060708  25 01020304  2b 0801 2c  32 00")).not.toThrow();
    expect(() => check("")).not.toThrow();
  });

  it("does not look into length-delimited contents", () => {
    expect(() => check("12 02 0000")).not.toThrow();
  });

  it("accepts the largest field number and 10-byte varints", () => {
    expect(() => check("f8ffffff0f 00")).not.toThrow();
    expect(() => check("08 ffffffffffffffffff01")).not.toThrow();
  });

  it.each([
    ["00", "invalid field number 0 at offset 0"],
    ["0801 00", "invalid field number 0 at offset 2"],
    ["8080808010 00", "invalid field number 536870912 at offset 0"],
    ["0e", "invalid wire type 6 at offset 0"],
    ["0f", "invalid wire type 7 at offset 0"],
    ["08", "truncated varint at offset 1"],
    ["08 ff", "truncated varint at offset 1"],
    ["08 ffffffffffffffffffff01", "varint overflows 64 bits at offset 1"],
    ["08 ffffffffffffffffff02", "varint overflows 64 bits at offset 1"],
    ["12 03 6869", "field 2 of 3 bytes runs past the end of its message at offset 0"],
    ["12", "truncated varint at offset 1"],
    ["19 01020304", "field 3 runs past the end of its message at offset 0"],
    ["25 0102", "field 4 runs past the end of its message at offset 0"],
    ["0c", "end of group 1 without its start at offset 0"],
    ["0b 14", "end of group 2 without its start at offset 1"],
    ["0b 0801", "group 1 not ended at offset 3"],
  ])("rejects %s: %s", (hex, message) => {
    expect(() => check(hex)).toThrow(message);
    expect(() => check(hex)).toThrow(FramingError);
  });

  it("checks only the given range", () => {
    const input = bytes("00 0801 00");
    expect(() => checkFraming(input, 1, 3)).not.toThrow();
    expect(() => checkFraming(input, 1, 2)).toThrow("truncated varint at offset 2");
  });

  it("limits group nesting", () => {
    expect(() => check("0b".repeat(101))).toThrow("groups nested too deeply at offset 100");
  });
});
