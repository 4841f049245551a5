import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeRequest, decodeResponse, encodeRequestFrame, encodeResponseFrame } from "./envelope.js";
import { OversizedMessageError, readFrameHeader } from "./frame.js";
import { Request, Response } from "./gen/ttrpc/request.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const text = (s: string) => Buffer.from(s).toString("hex");

describe("encodeRequestFrame", () => {
  it("matches the RegisterPlugin request captured from Go (reference sheet, section 1.6)", () => {
    const payload = Buffer.from(`0a06${text("logger")}120231301a07${text("v0.12.2")}`, "hex");
    const frame = encodeRequestFrame(1, 0, {
      service: "nri.pkg.api.v1alpha1.Runtime",
      method: "RegisterPlugin",
      payload,
      timeoutNano: 5_000_000_000n,
      metadata: [],
    });
    expect(hex(frame)).toBe(
      "0000004b000000010100" +
        `0a1c${text("nri.pkg.api.v1alpha1.Runtime")}` +
        `120e${text("RegisterPlugin")}` +
        `1a15${hex(payload)}` +
        "2080e497d012",
    );
  });

  it("writes what the generated encoder writes, behind a matching header", () => {
    const request = fc.record({
      service: fc.string({ unit: "grapheme" }),
      method: fc.string(),
      payload: fc.uint8Array({ maxLength: 600 }),
      timeoutNano: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      metadata: fc.array(fc.record({ key: fc.string(), value: fc.string({ unit: "grapheme" }) }), { maxLength: 4 }),
    });
    fc.assert(
      fc.property(request, fc.nat({ max: 0xffffffff }), fc.nat({ max: 0xff }), (fields, streamId, flags) => {
        const frame = encodeRequestFrame(streamId, flags, fields);
        const expected = Request.encode(
          Request.fromPartial({ ...fields, payload: Buffer.from(fields.payload) }),
        ).finish();
        expect(hex(frame.subarray(10))).toBe(hex(expected));
        expect(readFrameHeader(frame)).toEqual({ length: expected.length, streamId, type: 1, flags });
      }),
    );
  });

  it("refuses an envelope over 4 MiB", () => {
    // 3 + 3 bytes for service and method, 1 + 4 for the payload's tag and length
    const request = { service: "s", method: "m", payload: new Uint8Array(4194304 - 11), timeoutNano: 0n, metadata: [] };
    expect(encodeRequestFrame(1, 0, request).length).toBe(10 + 4194304);
    expect(() => encodeRequestFrame(1, 0, { ...request, method: "mm" })).toThrow(OversizedMessageError);
  });
});

describe("encodeResponseFrame", () => {
  it("sends an empty success as a frame of length 0", () => {
    expect(hex(encodeResponseFrame(3, undefined, new Uint8Array(0)))).toBe("00000000000000030200");
  });

  it("sends a success as the payload field alone (ConfigureResponse{events: 8}, section 1.6)", () => {
    expect(hex(encodeResponseFrame(1, undefined, Uint8Array.of(0x10, 0x08)))).toBe("0000000400000001020012021008");
  });

  it('sends a failure as the status alone (Unimplemented "method Foo", section 1.6)', () => {
    expect(hex(encodeResponseFrame(1, { code: 12, message: "method Foo" }, new Uint8Array(0)))).toBe(
      `000000100000000102000a0e080c120a${text("method Foo")}`,
    );
  });

  it("writes what the generated encoder writes", () => {
    const status = fc.option(
      fc.record({ code: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), message: fc.string() }),
      {
        nil: undefined,
      },
    );
    fc.assert(
      fc.property(status, fc.uint8Array({ maxLength: 300 }), (status, payload) => {
        const frame = encodeResponseFrame(5, status, payload);
        const expected = Response.encode(
          Response.fromPartial({ status: status && { ...status, details: [] }, payload: Buffer.from(payload) }),
        ).finish();
        expect(hex(frame.subarray(10))).toBe(hex(expected));
      }),
    );
  });
});

/** The outcome of a decoder: its result, or that it threw an Error. */
function outcome<T>(decode: () => T): T | "error" {
  try {
    return decode();
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    return "error";
  }
}

/** Random bytes, mixed with well-formed fields of the envelopes. */
const wireNoise = fc
  .array(
    fc.oneof(
      fc.uint8Array({ maxLength: 12 }),
      fc.constantFrom(
        Uint8Array.of(0x0a, 0x01, 0x61),
        Uint8Array.of(0x12, 0x00),
        Uint8Array.of(0x1a, 0x02, 0x08, 0x01),
        Uint8Array.of(0x20, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
        Uint8Array.of(0x2a, 0x04, 0x0a, 0x00, 0x12, 0x00),
        Uint8Array.of(0x0a, 0x04, 0x08, 0x0c, 0x12, 0x00),
        Uint8Array.of(0x0b, 0x08, 0x01, 0x0c),
        Uint8Array.of(0x39, 1, 2, 3, 4, 5, 6, 7, 8),
      ),
    ),
    { maxLength: 8 },
  )
  .map((parts) => Uint8Array.from(Buffer.concat(parts)));

describe("decodeRequest and decodeResponse", () => {
  it("read what the generated decoders read from any well-formed envelope", () => {
    const request = fc.record({
      service: fc.string({ unit: "grapheme" }),
      method: fc.string(),
      payload: fc.uint8Array({ maxLength: 100 }),
      timeoutNano: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      metadata: fc.array(fc.record({ key: fc.string(), value: fc.string() }), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(request, (fields) => {
        const bytes = encodeRequestFrame(1, 0, fields).subarray(10);
        const ours = decodeRequest(bytes);
        expect({ ...ours, payload: Buffer.from(ours.payload) }).toEqual(Request.decode(bytes));
      }),
    );
    const response = fc.record({
      status: fc.option(fc.record({ code: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), message: fc.string() }), {
        nil: undefined,
      }),
      payload: fc.uint8Array({ maxLength: 100 }),
    });
    fc.assert(
      fc.property(response, ({ status, payload }) => {
        const bytes = encodeResponseFrame(1, status, payload).subarray(10);
        const theirs = Response.decode(bytes);
        const ours = decodeResponse(bytes);
        expect(ours.status).toEqual(theirs.status && { code: theirs.status.code, message: theirs.status.message });
        expect(Buffer.from(ours.payload)).toEqual(theirs.payload);
      }),
    );
  });

  it("agree with the generated decoders on arbitrary bytes, and throw only Errors", () => {
    fc.assert(
      fc.property(wireNoise, (bytes) => {
        const ours = outcome(() => decodeRequest(bytes));
        const theirs = outcome(() => Request.decode(bytes));
        if (ours === "error" || theirs === "error") {
          // the generated decoder stops quietly at a field number 0 or a stray end of group;
          // Go's protobuf and ours refuse them
          if (theirs === "error") expect(ours).toBe("error");
          return;
        }
        expect({ ...ours, payload: Buffer.from(ours.payload) }).toEqual(theirs);
      }),
    );
    fc.assert(
      fc.property(wireNoise, (bytes) => {
        const ours = outcome(() => decodeResponse(bytes));
        const theirs = outcome(() => Response.decode(bytes));
        if (ours === "error" || theirs === "error") {
          if (theirs === "error") expect(ours).toBe("error");
          return;
        }
        expect(ours.status).toEqual(theirs.status && { code: theirs.status.code, message: theirs.status.message });
        expect(Buffer.from(ours.payload)).toEqual(theirs.payload);
      }),
    );
  });

  it("hand out the payload as a view into the frame, not a copy", () => {
    const bytes = encodeRequestFrame(1, 0, {
      service: "s",
      method: "m",
      payload: Uint8Array.of(1, 2, 3),
      timeoutNano: 0n,
      metadata: [],
    });
    const payload = decodeRequest(bytes.subarray(10)).payload;
    expect(payload.buffer).toBe(bytes.buffer);
  });
});
