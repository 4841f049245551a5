import { MuxError } from "./errors.js";
import { HEADER_LENGTH, MAX_PAYLOAD } from "./frame.js";

/** Receives what a {@link FrameParser} finds in the trunk's byte stream. */
export interface FrameSink {
  /** A frame header: `length` payload bytes for connection `id` follow (maybe 0). */
  frameStart(id: number, length: number): void;
  /** The next piece of the current frame's payload: a view into the fed chunk, never a copy. */
  payload(id: number, bytes: Buffer): void;
}

/**
 * Incremental decoder of the mux byte stream: feed it the trunk's chunks as
 * they arrive, cut anywhere. Payload is handed on piece by piece as views into
 * the fed chunks, so the parser itself never buffers more than a header.
 * A header announcing more than {@link MAX_PAYLOAD} bytes makes `feed` throw a
 * `MuxError` (`ERR_MUX_FRAME_TOO_LARGE`); the parser then refuses further input.
 */
export class FrameParser {
  readonly #header = Buffer.alloc(HEADER_LENGTH);
  #headerFill = 0;
  #id = 0;
  #remaining = 0;
  #failure: MuxError | undefined;

  feed(chunk: Buffer, sink: FrameSink): void {
    if (this.#failure) throw this.#failure;
    let offset = 0;
    while (offset < chunk.length) {
      if (this.#remaining > 0) {
        const end = Math.min(chunk.length, offset + this.#remaining);
        this.#remaining -= end - offset;
        sink.payload(this.#id, chunk.subarray(offset, end));
        offset = end;
        continue;
      }
      const take = Math.min(HEADER_LENGTH - this.#headerFill, chunk.length - offset);
      chunk.copy(this.#header, this.#headerFill, offset, offset + take);
      this.#headerFill += take;
      offset += take;
      if (this.#headerFill === HEADER_LENGTH) this.#startFrame(sink);
    }
  }

  #startFrame(sink: FrameSink): void {
    this.#headerFill = 0;
    const id = this.#header.readUInt32BE(0);
    const length = this.#header.readUInt32BE(4);
    if (length > MAX_PAYLOAD) {
      this.#failure = new MuxError(
        "ERR_MUX_FRAME_TOO_LARGE",
        // Go's text (v0.12.5), word for word.
        `conn ${id}: frame payload ${length} bytes, maximum is ${MAX_PAYLOAD}`,
      );
      throw this.#failure;
    }
    this.#id = id;
    this.#remaining = length;
    sink.frameStart(id, length);
  }
}
