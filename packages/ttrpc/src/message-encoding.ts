import { BinaryWriter } from "@bufbuild/protobuf/wire";
import type { AnyMessageType } from "./definition.js";

/** A writer that grew past this many bytes is dropped rather than kept for reuse. */
const KEEP_LIMIT = 64 * 1024;

/** One writer for every encoding: encoding is synchronous, so it is never shared at once. */
let writer = new BinaryWriter();

/**
 * Encodes `fromPartial(message)` with `type`, reusing one BinaryWriter so
 * that an encoding allocates little more than its result.
 */
export function encodeMessage(type: AnyMessageType, message: unknown): Uint8Array {
  try {
    const bytes = type.encode(type.fromPartial(message as never) as never, writer).finish();
    if (bytes.length > KEEP_LIMIT) writer = new BinaryWriter();
    return bytes;
  } catch (error) {
    writer = new BinaryWriter(); // it may hold half a message
    throw error;
  }
}
