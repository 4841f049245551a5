import { encodeFrame, FrameDecoder, MessageType } from "../src/index.js";

/** Throughput of the frame codec for one frame size. */
export interface CodecResult {
  label: string;
  encodeMBps: number;
  decodeMBps: number;
}

const SIZES: Array<[string, number]> = [
  ["64 B", 64],
  ["4 KiB", 4096],
  ["1 MiB", 1 << 20],
];

/** How often `work` runs in about `ms` milliseconds, per second. */
function rate(work: () => void, ms = 400): number {
  let runs = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 16; i++) work();
    runs += 16;
    now = performance.now();
  }
  return runs / ((now - start) / 1000);
}

/**
 * Encodes frames of each size one by one, and decodes a stream of them
 * delivered in 64 KiB chunks, as a socket delivers them.
 */
export function benchCodec(): CodecResult[] {
  return SIZES.map(([label, size]) => {
    const data = new Uint8Array(size).fill(7);
    const encodeRate = rate(() => encodeFrame(1, MessageType.Data, 0, data));

    const count = Math.max(1, Math.floor((8 << 20) / (size + 10)));
    const stream = Buffer.concat(
      Array.from({ length: count }, (_, i) => encodeFrame(2 * i + 1, MessageType.Data, 0, data)),
    );
    const chunks: Uint8Array[] = [];
    for (let offset = 0; offset < stream.length; offset += 65536) chunks.push(stream.subarray(offset, offset + 65536));
    let decoded = 0;
    const decoder = new FrameDecoder({
      frame: () => decoded++,
      oversized: () => {},
    });
    const decodeRate = rate(() => {
      for (const chunk of chunks) decoder.push(chunk);
    }, 600);
    if (decoded === 0) throw new Error("nothing decoded");
    return {
      label,
      encodeMBps: (encodeRate * (size + 10)) / 1e6,
      decodeMBps: (decodeRate * stream.length) / 1e6,
    };
  });
}
