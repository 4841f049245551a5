import { MuxError } from "./errors.js";

/** Bytes in a mux frame header: connection id (u32 BE), payload length (u32 BE). */
export const HEADER_LENGTH = 8;

/**
 * Largest payload a Go peer writes in one frame: a ttrpc header (10 bytes)
 * plus ttrpc's 4 MiB message limit. Our reader refuses anything larger.
 */
export const MAX_PAYLOAD = 10 + 4 * 1024 * 1024;

/**
 * Go's ttrpc reads a mux connection through a 4096-byte `bufio.Reader`, and a
 * Go mux connection refuses a read whose buffer is smaller than the frame. A
 * frame that starts a message must therefore fit in 4096 bytes.
 */
export const FIRST_FRAME_LIMIT = 4096;

/** Largest connection id: ids are u32 on the wire. */
export const MAX_CONN_ID = 0xffff_ffff;

/** The id the protocol reserves; frames for it are dropped. */
export const RESERVED_CONN_ID = 0;

/** The connection on which the plugin serves the `Plugin` service (runtime is the ttrpc client). */
export const PLUGIN_SERVICE_CONN = 1;

/** The connection on which the runtime serves the `Runtime` service (plugin is the ttrpc client). */
export const RUNTIME_SERVICE_CONN = 2;

/**
 * Payload sizes of the frames that carry one written message of `length`
 * bytes, cut the way Go's ttrpc-over-mux cuts it: the whole message when it
 * fits in 4096 bytes, otherwise 4096 bytes and then the entire remainder (cut
 * again only where it exceeds {@link MAX_PAYLOAD}). An empty message needs no
 * frame.
 */
export function frameSizes(length: number): number[] {
  if (length <= FIRST_FRAME_LIMIT) return length === 0 ? [] : [length];
  const sizes = [FIRST_FRAME_LIMIT];
  for (let left = length - FIRST_FRAME_LIMIT; left > 0; left -= MAX_PAYLOAD) {
    sizes.push(Math.min(left, MAX_PAYLOAD));
  }
  return sizes;
}

/**
 * The bytes that carry one written message on connection `id`, as buffers to
 * write to the trunk in order: a frame of up to 4096 bytes is one buffer
 * (header and a copy of its payload); a larger frame is its header followed by
 * a view into `message` (no copy).
 */
export function encodeFrames(id: number, message: Uint8Array): Buffer[] {
  const buffers: Buffer[] = [];
  let offset = 0;
  for (const size of frameSizes(message.length)) {
    const payload = message.subarray(offset, offset + size);
    offset += size;
    if (size <= FIRST_FRAME_LIMIT) {
      const frame = Buffer.allocUnsafe(HEADER_LENGTH + size);
      writeHeader(frame, id, size);
      frame.set(payload, HEADER_LENGTH);
      buffers.push(frame);
    } else {
      const header = Buffer.allocUnsafe(HEADER_LENGTH);
      writeHeader(header, id, size);
      buffers.push(header, Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength));
    }
  }
  return buffers;
}

function writeHeader(target: Buffer, id: number, length: number): void {
  target.writeUInt32BE(id, 0);
  target.writeUInt32BE(length, 4);
}

/** Throws a {@link MuxError} unless `id` is a connection id a caller may open. */
export function checkConnId(id: number): void {
  if (!Number.isInteger(id) || id < 0 || id > MAX_CONN_ID) {
    throw new MuxError("ERR_MUX_INVALID_ID", `connection id ${String(id)} is not an integer from 1 to ${MAX_CONN_ID}`);
  }
  if (id === RESERVED_CONN_ID) {
    throw new MuxError("ERR_MUX_RESERVED_ID", "connection id 0 is reserved");
  }
}
