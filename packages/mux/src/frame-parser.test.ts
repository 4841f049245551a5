import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MuxError } from "./errors.js";
import { MAX_PAYLOAD } from "./frame.js";
import { FrameParser, type FrameSink } from "./frame-parser.js";
import { frame } from "./testing/support.js";

interface Seen {
  starts: Array<[number, number]>;
  streams: Map<number, Buffer[]>;
  largestPiece: number;
}

function recorder(): { seen: Seen; sink: FrameSink } {
  const seen: Seen = { starts: [], streams: new Map(), largestPiece: 0 };
  const sink: FrameSink = {
    frameStart: (id, length) => seen.starts.push([id, length]),
    payload: (id, bytes) => {
      seen.largestPiece = Math.max(seen.largestPiece, bytes.length);
      const pieces = seen.streams.get(id) ?? [];
      pieces.push(bytes);
      seen.streams.set(id, pieces);
    },
  };
  return { seen, sink };
}

/** Cuts `bytes` at the given fractions of its length. */
function cut(bytes: Buffer, fractions: number[]): Buffer[] {
  const points = [...new Set(fractions.map((f) => Math.floor(f * bytes.length)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let start = 0;
  for (const point of [...points, bytes.length]) {
    pieces.push(bytes.subarray(start, point));
    start = point;
  }
  return pieces;
}

const frames = fc.array(
  fc.record({ id: fc.integer({ min: 0, max: 0xffff_ffff }), payload: fc.uint8Array({ maxLength: 300 }) }),
  { maxLength: 30 },
);
const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 20 });

describe("FrameParser", () => {
  it("finds every frame however the stream is cut", () => {
    fc.assert(
      fc.property(frames, cuts, (input, fractions) => {
        const { seen, sink } = recorder();
        const parser = new FrameParser();
        for (const piece of cut(Buffer.concat(input.map((f) => frame(f.id, f.payload))), fractions)) {
          parser.feed(piece, sink);
        }
        expect(seen.starts).toEqual(input.map((f) => [f.id, f.payload.length]));
        for (const id of new Set(input.map((f) => f.id))) {
          const expected = Buffer.concat(input.filter((f) => f.id === id).map((f) => f.payload));
          expect(Buffer.concat(seen.streams.get(id) ?? [])).toEqual(expected);
        }
      }),
    );
  });

  it("accepts a zero-length frame and a frame of exactly the maximum payload", () => {
    const { seen, sink } = recorder();
    const parser = new FrameParser();
    parser.feed(frame(3, []), sink);
    parser.feed(frame(4, Buffer.alloc(MAX_PAYLOAD)), sink);
    expect(seen.starts).toEqual([
      [3, 0],
      [4, MAX_PAYLOAD],
    ]);
    expect(seen.streams.has(3)).toBe(false);
  });

  it("refuses a frame longer than the maximum payload, and everything after it", () => {
    const { seen, sink } = recorder();
    const parser = new FrameParser();
    const expected = new MuxError("ERR_MUX_FRAME_TOO_LARGE", "conn 1: frame payload 4194315 bytes, maximum is 4194314");
    expect(() => parser.feed(frame(1, [], MAX_PAYLOAD + 1), sink)).toThrow(expected);
    expect(() => parser.feed(frame(1, [1]), sink)).toThrow(expected);
    expect(seen.starts).toEqual([]);
  });

  it("survives random bytes: at most a clear MuxError, no payload beyond its input, no frame over the limit", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 20 }), (chunks) => {
        const { seen, sink } = recorder();
        const parser = new FrameParser();
        let fed = 0;
        try {
          for (const chunk of chunks) {
            fed += chunk.length;
            parser.feed(Buffer.from(chunk), sink);
          }
        } catch (error) {
          expect(error).toBeInstanceOf(MuxError);
          expect((error as MuxError).code).toBe("ERR_MUX_FRAME_TOO_LARGE");
        }
        const delivered = [...seen.streams.values()].flat().reduce((sum, b) => sum + b.length, 0);
        expect(delivered).toBeLessThanOrEqual(fed);
        expect(seen.largestPiece).toBeLessThanOrEqual(64);
        expect(seen.starts.every(([, length]) => length <= MAX_PAYLOAD)).toBe(true);
      }),
    );
  });
});
