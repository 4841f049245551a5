import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeFrame, type Frame, MAX_DATA_LENGTH, writeFrameHeader } from "./frame.js";
import { FrameDecoder, TruncatedFrameError } from "./frame-decoder.js";

type Event = Frame | { oversized: true; streamId: number; type: number; flags: number; length: number };

/** A decoder that records what it finds, checking its buffer bound after every chunk. */
function recorder() {
  const events: Event[] = [];
  let maxBuffered = 0;
  const decoder = new FrameDecoder({
    frame: (streamId, type, flags, data) =>
      events.push({ streamId, type, flags, length: data.length, data: Uint8Array.from(data) }),
    oversized: (streamId, type, flags, length) => events.push({ oversized: true, streamId, type, flags, length }),
  });
  return {
    events,
    push(chunk: Uint8Array) {
      decoder.push(chunk);
      maxBuffered = Math.max(maxBuffered, decoder.bufferedBytes);
    },
    end: () => decoder.end(),
    get maxBuffered() {
      return maxBuffered;
    },
  };
}

/** Cuts `bytes` at the given fractions into chunks (empty chunks included). */
function cut(bytes: Uint8Array, fractions: number[]): Uint8Array[] {
  const points = fractions.map((f) => Math.floor(f * bytes.length)).sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.subarray(start, point));
    start = point;
  }
  return chunks;
}

const frameArbitrary = fc.record({
  streamId: fc.nat({ max: 0xffffffff }),
  type: fc.nat({ max: 0xff }),
  flags: fc.nat({ max: 0xff }),
  data: fc.uint8Array({ maxLength: 300 }),
});

describe("FrameDecoder", () => {
  it("decodes any frame stream cut into any chunks to the same frames", () => {
    fc.assert(
      fc.property(
        fc.array(frameArbitrary, { maxLength: 20 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 30 }),
        (frames, fractions) => {
          const stream = Buffer.concat(frames.map((f) => encodeFrame(f.streamId, f.type, f.flags, f.data)));
          const decoded = recorder();
          for (const chunk of cut(stream, fractions)) decoded.push(chunk);
          decoded.end();
          expect(decoded.events).toEqual(
            frames.map((f) => ({
              streamId: f.streamId,
              type: f.type,
              flags: f.flags,
              length: f.data.length,
              data: f.data,
            })),
          );
        },
      ),
    );
  });

  /** Random bytes, mixed with plausible headers so that small lengths occur too. */
  const noise = fc
    .array(
      fc.oneof(
        fc.uint8Array({ maxLength: 200 }),
        fc
          .record({
            length: fc.oneof(fc.nat({ max: 300 }), fc.constant(MAX_DATA_LENGTH), fc.nat({ max: 0xffffffff })),
            streamId: fc.nat({ max: 0xffffffff }),
          })
          .map(({ length, streamId }) => {
            const header = new Uint8Array(10);
            writeFrameHeader(header, 0, length, streamId, 1, 0);
            return header;
          }),
      ),
      { maxLength: 20 },
    )
    .map((parts) => Buffer.concat(parts));

  it("never throws on random bytes, never buffers past the limit, and ends with a typed error or cleanly", () => {
    fc.assert(
      fc.property(
        noise,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 10 }),
        (bytes, fractions) => {
          const decoded = recorder();
          for (const chunk of cut(bytes, fractions)) decoded.push(chunk);
          expect(decoded.maxBuffered).toBeLessThanOrEqual(10 + MAX_DATA_LENGTH);
          for (const event of decoded.events) {
            if (!("oversized" in event)) expect(event.data.length).toBeLessThanOrEqual(MAX_DATA_LENGTH);
            else expect(event.length).toBeGreaterThan(MAX_DATA_LENGTH);
          }
          try {
            decoded.end();
          } catch (error) {
            expect(error).toBeInstanceOf(TruncatedFrameError);
          }
        },
      ),
    );
  });

  it("splits many frames that arrive in one chunk, and one frame that arrives byte by byte", () => {
    const frames = [1, 3, 5].map((id) => encodeFrame(id, 1, 0, Buffer.from(`frame ${id}`)));
    const together = recorder();
    together.push(Buffer.concat(frames));
    expect(together.events.map((e) => e.streamId)).toEqual([1, 3, 5]);

    const bytewise = recorder();
    for (const byte of frames[2]) bytewise.push(Uint8Array.of(byte));
    expect(bytewise.events).toEqual([
      { streamId: 5, type: 1, flags: 0, length: 7, data: Uint8Array.from(Buffer.from("frame 5")) },
    ]);
  });

  it("skips an oversized frame without buffering it, reports its stream id, and goes on", () => {
    const length = MAX_DATA_LENGTH + 1;
    const header = new Uint8Array(10);
    writeFrameHeader(header, 0, length, 7, 1, 0);
    const decoded = recorder();
    decoded.push(header);
    for (let sent = 0; sent < length; sent += 65536) {
      decoded.push(new Uint8Array(Math.min(65536, length - sent)).fill(0xaa));
    }
    decoded.push(encodeFrame(9, 1, 0, Buffer.from("next")));
    decoded.end();
    expect(decoded.maxBuffered).toBeLessThanOrEqual(10);
    expect(decoded.events).toEqual([
      { oversized: true, streamId: 7, type: 1, flags: 0, length },
      { streamId: 9, type: 1, flags: 0, length: 4, data: Uint8Array.from(Buffer.from("next")) },
    ]);
  });

  it("reports a stream that ends inside a header or inside data", () => {
    const inHeader = recorder();
    inHeader.push(new Uint8Array(4));
    expect(() => inHeader.end()).toThrow("ttrpc: stream ended inside a frame header (4 of 10 bytes)");
    const inData = recorder();
    inData.push(encodeFrame(1, 1, 0, new Uint8Array(100)).subarray(0, 60));
    expect(() => inData.end()).toThrow("ttrpc: stream ended inside a frame (60 of 110 bytes)");
  });
});
