/**
 * A schema-free check of one protobuf message's framing: every tag has a
 * field number from 1 to 2^29 - 1 and a wire type that exists, no varint
 * overflows 64 bits, no field runs past the end, and groups are properly
 * nested. These are structural rules Go's decoder enforces; ts-proto's
 * decoders skip some of them (a zero tag, for one, silently ends a message).
 *
 * Nested messages cannot be told apart from strings or bytes without the
 * schema, so their contents are not looked into; the caller checks each one
 * when it decodes it.
 */

/** The largest field number protobuf allows. */
const MAX_FIELD_NUMBER = 2 ** 29 - 1;
/** How deeply groups may nest; @bufbuild/protobuf's reader has the same limit. */
const MAX_GROUP_DEPTH = 100;

export class FramingError extends Error {
  override readonly name = "FramingError";

  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at offset ${offset}`);
  }
}

/** The value of the varint readVarint read last (inexact above 2^53); a global to spare an allocation per varint. */
let varintValue = 0;

/**
 * Reads a varint at `pos` into `varintValue` and returns where it ends. As
 * in Go, a tenth byte above 1 (which includes any varint longer than ten
 * bytes) overflows 64 bits.
 */
function readVarint(bytes: Uint8Array, pos: number, end: number): number {
  let value = 0;
  let scale = 1;
  for (let i = 0; ; i++) {
    if (pos + i >= end) throw new FramingError("truncated varint", pos);
    const byte = bytes[pos + i]!;
    if (i === 9 && byte > 1) throw new FramingError("varint overflows 64 bits", pos);
    value += (byte & 0x7f) * scale;
    if ((byte & 0x80) === 0) {
      varintValue = value;
      return pos + i + 1;
    }
    scale *= 128;
  }
}

/**
 * Checks the framing of the message in `bytes[start, end)`.
 * @throws FramingError
 */
export function checkFraming(bytes: Uint8Array, start: number, end: number): void {
  const groups: number[] = [];
  let pos = start;
  while (pos < end) {
    const tagAt = pos;
    pos = readVarint(bytes, pos, end);
    const field = Math.floor(varintValue / 8);
    const wireType = varintValue % 8;
    if (field < 1 || field > MAX_FIELD_NUMBER) throw new FramingError(`invalid field number ${field}`, tagAt);
    switch (wireType) {
      case 0:
        pos = readVarint(bytes, pos, end);
        break;
      case 1:
        pos += 8;
        break;
      case 2: {
        const contentStart = readVarint(bytes, pos, end);
        const length = varintValue;
        if (length > end - contentStart) {
          throw new FramingError(`field ${field} of ${length} bytes runs past the end of its message`, tagAt);
        }
        pos = contentStart + length;
        break;
      }
      case 3:
        if (groups.length >= MAX_GROUP_DEPTH) throw new FramingError("groups nested too deeply", tagAt);
        groups.push(field);
        break;
      case 4:
        if (groups.pop() !== field) throw new FramingError(`end of group ${field} without its start`, tagAt);
        break;
      case 5:
        pos += 4;
        break;
      default:
        throw new FramingError(`invalid wire type ${wireType}`, tagAt);
    }
    if (pos > end) throw new FramingError(`field ${field} runs past the end of its message`, tagAt);
  }
  if (groups.length > 0) throw new FramingError(`group ${groups.at(-1)} not ended`, end);
}
