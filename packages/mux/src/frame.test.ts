import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MuxError } from "./errors.js";
import { checkConnId, encodeFrames, FIRST_FRAME_LIMIT, frameSizes, MAX_PAYLOAD } from "./frame.js";

const MiB = 1024 * 1024;

describe("frameSizes", () => {
  // A ttrpc message is a 10-byte header plus its payload: these are the frame
  // sizes Go's ttrpc-over-mux produces for payloads of 0, 100, 4086, 4087,
  // 10000 bytes and 4 MiB.
  it.each([
    [0, [10]],
    [100, [110]],
    [4086, [4096]],
    [4087, [4096, 1]],
    [10000, [4096, 5914]],
    [4 * MiB, [4096, 4190218]],
  ])("cuts a ttrpc message with %i payload bytes like Go: %j", (payload, expected) => {
    expect(frameSizes(10 + payload)).toEqual(expected);
  });

  it("sends nothing for an empty write", () => {
    expect(frameSizes(0)).toEqual([]);
  });

  it("cuts a remainder beyond the maximum payload", () => {
    expect(frameSizes(FIRST_FRAME_LIMIT + MAX_PAYLOAD + 5)).toEqual([4096, MAX_PAYLOAD, 5]);
    expect(frameSizes(FIRST_FRAME_LIMIT + 2 * MAX_PAYLOAD)).toEqual([4096, MAX_PAYLOAD, MAX_PAYLOAD]);
  });

  it("covers the message with a first frame of at most 4096 bytes and no frame over the maximum", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 * MAX_PAYLOAD }), (length) => {
        const sizes = frameSizes(length);
        expect(sizes.reduce((a, b) => a + b, 0)).toBe(length);
        expect(sizes[0]).toBe(Math.min(length, FIRST_FRAME_LIMIT));
        expect(sizes.every((size) => size > 0 && size <= MAX_PAYLOAD)).toBe(true);
        expect(sizes.length).toBe(
          length <= FIRST_FRAME_LIMIT ? 1 : 1 + Math.ceil((length - FIRST_FRAME_LIMIT) / MAX_PAYLOAD),
        );
      }),
    );
  });
});

describe("encodeFrames", () => {
  it("writes a small message as one buffer: id and length big-endian, then the bytes", () => {
    expect([...Buffer.concat(encodeFrames(0x01020304, Buffer.from("hi")))]).toEqual([
      0x01, 0x02, 0x03, 0x04, 0, 0, 0, 2, 0x68, 0x69,
    ]);
    expect(encodeFrames(2, Buffer.from("hi"))).toHaveLength(1);
  });

  it("sends a large message as a 4096-byte frame, then a small rest as one buffer", () => {
    const message = Buffer.alloc(5000, 7);
    const [first, rest] = encodeFrames(1, message);
    expect(first.subarray(0, 8)).toEqual(Buffer.from([0, 0, 0, 1, 0, 0, 0x10, 0x00]));
    expect(first.length).toBe(8 + 4096);
    expect(rest.subarray(0, 8)).toEqual(Buffer.from([0, 0, 0, 1, 0, 0, 0x03, 0x88]));
    expect(rest.length).toBe(8 + 904);
  });

  it("sends a remainder over 4096 bytes as a header and a view of the message, not a copy", () => {
    const message = Buffer.alloc(10000, 7);
    const [first, header, rest] = encodeFrames(1, message);
    expect(first.length).toBe(8 + 4096);
    expect(header).toEqual(Buffer.from([0, 0, 0, 1, 0, 0, 0x17, 0x10]));
    expect(rest.buffer).toBe(message.buffer);
    expect(rest.length).toBe(5904);
  });
});

describe("checkConnId", () => {
  it("accepts 1 to 2^32-1", () => {
    expect(() => checkConnId(1)).not.toThrow();
    expect(() => checkConnId(0xffff_ffff)).not.toThrow();
  });

  it("refuses the reserved id 0", () => {
    expect(() => checkConnId(0)).toThrow(new MuxError("ERR_MUX_RESERVED_ID", "connection id 0 is reserved"));
  });

  it.each([-1, 1.5, 2 ** 32, Number.NaN])("refuses %d", (id) => {
    expect(() => checkConnId(id)).toThrow(/is not an integer from 1 to 4294967295/);
  });
});
