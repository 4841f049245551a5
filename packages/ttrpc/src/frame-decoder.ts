import { FRAME_HEADER_LENGTH, MAX_DATA_LENGTH, readUint32 } from "./frame.js";

/** Receives what a FrameDecoder finds, in stream order. */
export interface FrameSink {
  /**
   * A whole frame. `data` may be a view into a pushed chunk: the decoder
   * never writes to chunks, and the caller must not reuse their memory.
   */
  frame(streamId: number, type: number, flags: number, data: Uint8Array): void;
  /**
   * A frame whose data exceeds 4 MiB. Its data is skipped without being kept
   * (once it is skipped fully, decoding goes on with the next frame); a
   * server answers ResourceExhausted on `streamId`.
   */
  oversized(streamId: number, type: number, flags: number, length: number): void;
}

/** The byte stream ended in the middle of a frame. */
export class TruncatedFrameError extends Error {
  override readonly name = "TruncatedFrameError";
  /** Bytes of the unfinished frame that arrived, header included. */
  readonly receivedBytes: number;
  /** Bytes that frame needed, header included; undefined while the header was incomplete. */
  readonly expectedBytes: number | undefined;

  constructor(receivedBytes: number, expectedBytes: number | undefined) {
    super(
      expectedBytes === undefined
        ? `ttrpc: stream ended inside a frame header (${receivedBytes} of ${FRAME_HEADER_LENGTH} bytes)`
        : `ttrpc: stream ended inside a frame (${receivedBytes} of ${expectedBytes} bytes)`,
    );
    this.receivedBytes = receivedBytes;
    this.expectedBytes = expectedBytes;
  }
}

const HEADER = 0;
const DATA = 1;
const SKIP = 2;

const EMPTY = new Uint8Array(0);

/**
 * Turns a byte stream cut into arbitrary chunks back into frames. It never
 * throws on content: any 10 bytes are a valid header, and oversized frames
 * are reported and skipped. It holds at most one unfinished frame, so it
 * never buffers more than 10 + 4 MiB bytes.
 */
export class FrameDecoder {
  private readonly sink: FrameSink;
  private state = HEADER;
  private readonly header = new Uint8Array(FRAME_HEADER_LENGTH);
  private headerFill = 0;
  private length = 0;
  private streamId = 0;
  private type = 0;
  private flags = 0;
  /** Data of the current frame while it arrives in pieces. */
  private data: Buffer | undefined;
  private dataFill = 0;
  /** Bytes of an oversized frame still to be skipped. */
  private skipLeft = 0;

  constructor(sink: FrameSink) {
    this.sink = sink;
  }

  /** Bytes held for the unfinished frame; never more than 10 + 4 MiB. */
  get bufferedBytes(): number {
    return this.headerFill + this.dataFill;
  }

  /** Decodes one chunk, calling the sink for every frame it completes. */
  push(chunk: Uint8Array): void {
    let pos = 0;
    const end = chunk.length;
    while (pos < end) {
      if (this.state === HEADER) {
        if (this.headerFill === 0 && end - pos >= FRAME_HEADER_LENGTH) {
          this.startFrame(chunk, pos);
          pos += FRAME_HEADER_LENGTH;
        } else {
          const take = Math.min(FRAME_HEADER_LENGTH - this.headerFill, end - pos);
          this.header.set(chunk.subarray(pos, pos + take), this.headerFill);
          this.headerFill += take;
          pos += take;
          if (this.headerFill < FRAME_HEADER_LENGTH) return;
          this.headerFill = 0;
          this.startFrame(this.header, 0);
        }
        if (this.state === HEADER) this.emit(EMPTY);
      } else if (this.state === DATA) {
        if (this.data === undefined && end - pos >= this.length) {
          const data = chunk.subarray(pos, pos + this.length);
          pos += this.length;
          this.state = HEADER;
          this.emit(data);
        } else {
          const data = (this.data ??= Buffer.allocUnsafe(this.length));
          const take = Math.min(this.length - this.dataFill, end - pos);
          data.set(chunk.subarray(pos, pos + take), this.dataFill);
          this.dataFill += take;
          pos += take;
          if (this.dataFill < this.length) return;
          this.data = undefined;
          this.dataFill = 0;
          this.state = HEADER;
          this.emit(data);
        }
      } else {
        const take = Math.min(this.skipLeft, end - pos);
        this.skipLeft -= take;
        pos += take;
        if (this.skipLeft === 0) this.state = HEADER;
      }
    }
  }

  /** Declares the end of the stream: throws TruncatedFrameError inside a frame. */
  end(): void {
    if (this.state === HEADER) {
      if (this.headerFill > 0) throw new TruncatedFrameError(this.headerFill, undefined);
      return;
    }
    const expected = FRAME_HEADER_LENGTH + this.length;
    const missing = this.state === DATA ? this.length - this.dataFill : this.skipLeft;
    throw new TruncatedFrameError(expected - missing, expected);
  }

  /** Reads a header; leaves the state at HEADER only for an empty frame. */
  private startFrame(source: Uint8Array, offset: number): void {
    this.length = readUint32(source, offset);
    this.streamId = readUint32(source, offset + 4);
    this.type = source[offset + 8];
    this.flags = source[offset + 9];
    if (this.length > MAX_DATA_LENGTH) {
      this.skipLeft = this.length;
      this.state = SKIP;
      this.sink.oversized(this.streamId, this.type, this.flags, this.length);
    } else if (this.length > 0) {
      this.state = DATA;
    }
  }

  private emit(data: Uint8Array): void {
    this.sink.frame(this.streamId, this.type, this.flags, data);
  }
}
