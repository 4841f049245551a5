/**
 * Protobuf fields written straight into one buffer, for the encoders of the
 * requests whose generated encoders cost most (sync-encoding.ts,
 * validation-encoding.ts): they write the generated encoders' bytes, the
 * fields in the same order, proto3 defaults left out where those leave them
 * out. Plain functions on module state (the buffer and the write position),
 * so that a call costs what it says also in V8's interpreter and baseline
 * tiers, where a Synchronize at a runtime's start runs: no writer object to
 * carry along, no allocation per field or map entry, ASCII strings byte by
 * byte.
 *
 * One message at a time, written without yielding: `begin`, the fields,
 * then `end` (also when a field throws). A value not of its field's declared
 * type throws {@link NOT_PLAIN}: the caller rewinds (`rewind(mark())`) and
 * leaves that message to its generated encoder, which fails (or coerces the
 * value) exactly as it does.
 */
import { BinaryWriter } from "@bufbuild/protobuf/wire";
import type { MessageType } from "@nri-ts/api";

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Thrown where a value is not of its field's declared type. */
export const NOT_PLAIN = new Error("not of its declared type");

const NOTHING = Buffer.alloc(0);
let bytes = NOTHING;
let pos = 0;
const int64View = new DataView(new ArrayBuffer(8));
/** Where nested messages are written by their generated encoders: one writer, its buffer kept between them. */
const nested = new BinaryWriter();

/**
 * Starts a message in a buffer of `size` bytes, grown as needed: presize
 * what takes megabytes; below 4 KiB it comes from Node's buffer pool. Not
 * zeroed: only what is written is handed out.
 */
export function begin(size: number): void {
  bytes = Buffer.allocUnsafe(size);
  pos = 0;
}

/** Ends the message: the bytes written (a view of the buffer, no copy), none kept here. */
export function end(): Uint8Array {
  const written = bytes.subarray(0, pos);
  bytes = NOTHING;
  pos = 0;
  return written;
}

/** Where the next byte goes. */
export function mark(): number {
  return pos;
}

/** Drops what was written from `at` on. */
export function rewind(at: number): void {
  pos = at;
}

/** Makes room for `room` more bytes; growing a buffer of megabytes step by step costs copies. */
function reserve(room: number): void {
  if (pos + room <= bytes.length) return;
  let size = Math.max(bytes.length * 2, 64);
  while (size < pos + room) size *= 2;
  const grown = Buffer.allocUnsafe(size);
  grown.set(bytes.subarray(0, pos));
  bytes = grown;
}

function varint(value: number): void {
  while (value > 0x7f) {
    bytes[pos++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  bytes[pos++] = value;
}

/** A field's tag: one byte for field numbers 1 to 15, two for 16 to 2047 (room reserved by the caller). */
function tag(value: number): void {
  if (value > 0x7f) {
    bytes[pos++] = (value & 0x7f) | 0x80;
    bytes[pos++] = value >>> 7;
  } else {
    bytes[pos++] = value;
  }
}

export function string(field: number, value: string): void {
  if (typeof value !== "string") throw NOT_PLAIN;
  const length = value.length;
  reserve(length + 8);
  tag(field);
  if (length < 0x80) {
    const b = bytes;
    const start = pos;
    let p = start + 1;
    let i = 0;
    for (; i < length; i++) {
      const code = value.charCodeAt(i);
      if (code > 0x7f) break;
      b[p++] = code;
    }
    if (i === length) {
      b[start] = length;
      pos = p;
      return;
    }
  }
  // Not ASCII, or long: Node's UTF-8 writes what TextEncoder writes (a lone surrogate as U+FFFD).
  const byteLength = Buffer.byteLength(value, "utf8");
  reserve(byteLength + 5);
  varint(byteLength);
  pos += bytes.write(value, pos, byteLength, "utf8");
}

export function strings(field: number, values: readonly string[]): void {
  if (!Array.isArray(values)) throw NOT_PLAIN;
  for (let i = 0; i < values.length; i++) string(field, values[i]!);
}

/**
 * Starts a length-delimited field, `reserved` bytes kept for its length
 * (what it most likely takes); `close` with the returned position ends it.
 */
export function open(field: number, reserved: number): number {
  reserve(2 + reserved);
  tag(field);
  const start = pos;
  pos += reserved;
  return start;
}

/**
 * Ends the length-delimited field `open` started at `start`: its length goes
 * there, the content moved when the length takes another number of bytes.
 */
export function close(start: number, reserved: number): void {
  const length = pos - start - reserved;
  let width = 1;
  while (width < 5 && length >>> (7 * width) !== 0) width++;
  if (width !== reserved) {
    reserve(width - reserved);
    bytes.copyWithin(start + width, start + reserved, pos);
    pos += width - reserved;
  }
  let value = length;
  let p = start;
  while (value > 0x7f) {
    bytes[p++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  bytes[p] = value;
}

/** A map<string, string> field: one entry message per key, an empty key or value left out. */
export function stringMap(field: number, map: { readonly [key: string]: string }): void {
  if (typeof map !== "object" || map === null) throw NOT_PLAIN;
  // (for-in visits own keys in Object.entries' order, without making an array)
  for (const key in map) {
    if (!Object.hasOwn(map, key)) continue;
    const value = map[key]!;
    const start = open(field, 1);
    if (key !== "") string(10, key);
    if (value !== "") string(18, value);
    close(start, 1);
  }
}

/**
 * A map<int32, string> field as the generated encoder writes it: its keys
 * come from Object.entries as strings, never equal to 0, so every entry has
 * its key, 0 included; an empty value is left out.
 */
export function int32StringMap(field: number, map: { readonly [key: number]: string }): void {
  if (typeof map !== "object" || map === null) throw NOT_PLAIN;
  for (const key in map) {
    if (!Object.hasOwn(map, key)) continue;
    const value = map[key as unknown as number]!;
    const start = open(field, 1);
    int32(8, Number(key));
    if (value !== "") string(18, value);
    close(start, 1);
  }
}

export function uint32(field: number, value: number): void {
  if (value >>> 0 !== value) throw NOT_PLAIN;
  reserve(7);
  tag(field);
  varint(value);
}

function varint64(lo: number, hi: number): void {
  while (hi !== 0 || lo > 0x7f) {
    bytes[pos++] = (lo & 0x7f) | 0x80;
    lo = ((lo >>> 7) | (hi << 25)) >>> 0;
    hi >>>= 7;
  }
  bytes[pos++] = lo;
}

export function int32(field: number, value: number): void {
  if ((value | 0) !== value) throw NOT_PLAIN;
  if (value >= 0) return uint32(field, value);
  reserve(12);
  tag(field);
  // a negative int32 is sign-extended to ten bytes, as int64
  varint64(value >>> 0, 0xffff_ffff);
}

export function int64(field: number, value: bigint): void {
  if (typeof value !== "bigint" || value < INT64_MIN || value > INT64_MAX) throw NOT_PLAIN;
  reserve(12);
  tag(field);
  int64View.setBigInt64(0, value, true);
  varint64(int64View.getUint32(0, true), int64View.getUint32(4, true));
}

export function uint64(field: number, value: bigint): void {
  if (typeof value !== "bigint" || BigInt.asUintN(64, value) !== value) throw NOT_PLAIN;
  reserve(12);
  tag(field);
  int64View.setBigUint64(0, value, true);
  varint64(int64View.getUint32(0, true), int64View.getUint32(4, true));
}

export function bool(field: number, value: boolean): void {
  reserve(3);
  tag(field);
  bytes[pos++] = value ? 1 : 0;
}

/** A field of a nested message, by its generated encoder. */
export function message<T>(field: number, value: T, type: MessageType<T>): void {
  const encoded = type.encode(value, nested).finish();
  reserve(encoded.length + 7);
  tag(field);
  varint(encoded.length);
  bytes.set(encoded, pos);
  pos += encoded.length;
}

export function messages<T>(field: number, values: readonly T[], type: MessageType<T>): void {
  if (!Array.isArray(values)) throw NOT_PLAIN;
  for (let i = 0; i < values.length; i++) message(field, values[i]!, type);
}
