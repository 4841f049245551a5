import { describe, expect, it } from "vitest";
import {
  encodeFrame,
  Flag,
  MAX_DATA_LENGTH,
  MessageType,
  OversizedMessageError,
  readFrameHeader,
  writeFrameHeader,
} from "./frame.js";

describe("frame header", () => {
  it("is length and stream id big-endian, then type and flags", () => {
    const frame = encodeFrame(0x01020304, MessageType.Data, Flag.RemoteClosed | Flag.NoData, Buffer.from("hi"));
    expect([...frame]).toEqual([0, 0, 0, 2, 1, 2, 3, 4, 3, 5, 0x68, 0x69]);
    expect(readFrameHeader(frame)).toEqual({ length: 2, streamId: 0x01020304, type: 3, flags: 5 });
  });

  it("round-trips the largest values", () => {
    const header = new Uint8Array(12);
    writeFrameHeader(header, 2, 0xffffffff, 0xfffffffe, 0xff, 0xff);
    expect([...header]).toEqual([0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff]);
    expect(readFrameHeader(header, 2)).toEqual({ length: 0xffffffff, streamId: 0xfffffffe, type: 0xff, flags: 0xff });
  });

  it("encodes an empty frame as the header alone", () => {
    expect([...encodeFrame(1, MessageType.Response, 0, new Uint8Array(0))]).toEqual([0, 0, 0, 0, 0, 0, 0, 1, 2, 0]);
  });
});

describe("the 4 MiB data limit", () => {
  it("allows exactly 4194304 bytes", () => {
    expect(MAX_DATA_LENGTH).toBe(4194304);
    const frame = encodeFrame(1, MessageType.Request, 0, new Uint8Array(MAX_DATA_LENGTH));
    expect(frame.length).toBe(10 + 4194304);
    expect([...frame.subarray(0, 4)]).toEqual([0, 0x40, 0, 0]);
  });

  it("refuses one byte more with Go's text", () => {
    const refuse = () => encodeFrame(1, MessageType.Request, 0, new Uint8Array(MAX_DATA_LENGTH + 1));
    expect(refuse).toThrow(OversizedMessageError);
    expect(refuse).toThrow("message length 4194305 exceed maximum message size of 4194304");
    try {
      refuse();
    } catch (error) {
      expect(error).toMatchObject({ rejectedLength: 4194305, maximumLength: 4194304 });
    }
  });
});
