// Helpers shared by this package's tests (not part of the build).
import { once } from "node:events";
import { Duplex, type Readable } from "node:stream";
import { FrameParser } from "../frame-parser.js";

/**
 * A trunk in memory: keeps what the mux writes, and lets a test feed what the
 * mux reads. With `holdWrites`, write callbacks wait for `release()`, so the
 * trunk fills up and `write()` returns false once past its high-water mark.
 */
export class MemoryTrunk extends Duplex {
  readonly written: Buffer[] = [];
  readonly #held: Array<() => void> = [];
  readonly #holdWrites: boolean;

  constructor(options: { holdWrites?: boolean; writableHighWaterMark?: number } = {}) {
    super({ writableHighWaterMark: options.writableHighWaterMark });
    this.#holdWrites = options.holdWrites ?? false;
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.written.push(chunk);
    if (this.#holdWrites) this.#held.push(callback);
    else callback();
  }

  /** Lets every held write complete. */
  release(): void {
    for (const callback of this.#held.splice(0)) callback();
  }

  /** Everything written so far, as one buffer. */
  bytes(): Buffer {
    return Buffer.concat(this.written);
  }
}

/** A decoded frame: connection id and payload. */
export interface Frame {
  id: number;
  payload: Buffer;
}

/** Splits a complete mux byte stream into its frames. */
export function parseFrames(bytes: Buffer): Frame[] {
  const frames: Frame[] = [];
  new FrameParser().feed(bytes, {
    frameStart: (id) => frames.push({ id, payload: Buffer.alloc(0) }),
    payload: (_id, piece) => {
      const frame = frames[frames.length - 1];
      frame.payload = Buffer.concat([frame.payload, piece]);
    },
  });
  return frames;
}

/** The frame bytes for a payload on connection `id`, built by hand. */
export function frame(id: number, payload: Uint8Array | number[], announcedLength?: number): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(id, 0);
  header.writeUInt32BE(announcedLength ?? payload.length, 4);
  return Buffer.concat([header, Buffer.from(payload)]);
}

/** Everything a readable delivers until it ends. */
export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => chunks.push(chunk));
  stream.resume();
  await once(stream, "end");
  return Buffer.concat(chunks);
}

/** Resolves after pending I/O callbacks and ticks have run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
