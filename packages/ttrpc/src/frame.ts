/** Bytes before the data of every frame: length, stream id, type, flags. */
export const FRAME_HEADER_LENGTH = 10;

/** Largest data length a frame may carry (4 MiB); one byte more is refused. */
export const MAX_DATA_LENGTH = 4 << 20;

/** The frame types of ttrpc protocol 1.2. */
export const MessageType = {
  /** Client → server: opens a stream (the whole request for a unary call). */
  Request: 1,
  /** Server → client: ends a stream with a status and maybe a payload. */
  Response: 2,
  /** Either way: one message of an open stream. */
  Data: 3,
} as const;
export type MessageType = (typeof MessageType)[keyof typeof MessageType];

/** Frame flag bits; their meaning depends on the frame type. */
export const Flag = {
  /** The sender will send nothing more on this stream. */
  RemoteClosed: 0x1,
  /** On a Request: the client will keep sending Data frames. */
  RemoteOpen: 0x2,
  /** On a Data frame: the frame carries no message at all. */
  NoData: 0x4,
} as const;

/** The fixed part of a frame. `type` is a number because peers may send any. */
export interface FrameHeader {
  /** Data length in bytes (after the header). */
  length: number;
  streamId: number;
  type: number;
  flags: number;
}

/** A whole decoded frame. */
export interface Frame extends FrameHeader {
  data: Uint8Array;
}

/** Writes a 10-byte header at `offset` of `target`. */
export function writeFrameHeader(
  target: Uint8Array,
  offset: number,
  length: number,
  streamId: number,
  type: number,
  flags: number,
): void {
  target[offset] = length >>> 24;
  target[offset + 1] = length >>> 16;
  target[offset + 2] = length >>> 8;
  target[offset + 3] = length;
  target[offset + 4] = streamId >>> 24;
  target[offset + 5] = streamId >>> 16;
  target[offset + 6] = streamId >>> 8;
  target[offset + 7] = streamId;
  target[offset + 8] = type;
  target[offset + 9] = flags;
}

/** Reads the 10-byte header at `offset` of `source` (which must hold it). */
export function readFrameHeader(source: Uint8Array, offset = 0): FrameHeader {
  return {
    length: readUint32(source, offset),
    streamId: readUint32(source, offset + 4),
    type: source[offset + 8],
    flags: source[offset + 9],
  };
}

export function readUint32(source: Uint8Array, offset: number): number {
  return source[offset] * 0x1000000 + ((source[offset + 1] << 16) | (source[offset + 2] << 8) | source[offset + 3]);
}

/**
 * A message too large for one frame (more than 4 MiB of data). Nothing was
 * written; the connection is still usable. The text is the one Go's ttrpc
 * uses for the same refusal.
 */
export class OversizedMessageError extends Error {
  override readonly name = "OversizedMessageError";
  /** Length of the refused data in bytes. */
  readonly rejectedLength: number;
  /** The limit it broke (4194304). */
  readonly maximumLength = MAX_DATA_LENGTH;

  constructor(rejectedLength: number) {
    super(oversizedText(rejectedLength));
    this.rejectedLength = rejectedLength;
  }
}

/** The status message Go's ttrpc gives a frame of `length` bytes over the limit. */
export function oversizedText(length: number): string {
  return `message length ${length} exceed maximum message size of ${MAX_DATA_LENGTH}`;
}

/** Throws OversizedMessageError when `length` exceeds the 4 MiB limit. */
export function assertDataLength(length: number): void {
  if (length > MAX_DATA_LENGTH) throw new OversizedMessageError(length);
}

/**
 * One whole frame (header and data) in one buffer, ready for a single
 * `write()`. Throws OversizedMessageError for data over 4 MiB.
 */
export function encodeFrame(streamId: number, type: number, flags: number, data: Uint8Array): Buffer {
  assertDataLength(data.length);
  const frame = Buffer.allocUnsafe(FRAME_HEADER_LENGTH + data.length);
  writeFrameHeader(frame, 0, data.length, streamId, type, flags);
  frame.set(data, FRAME_HEADER_LENGTH);
  return frame;
}
