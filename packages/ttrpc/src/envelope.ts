import { assertDataLength, FRAME_HEADER_LENGTH, MessageType, writeFrameHeader } from "./frame.js";
import type { KeyValue } from "./gen/ttrpc/request.js";

/*
 * Frames holding a ttrpc.Request or ttrpc.Response, encoded straight into the
 * frame buffer: one allocation and one copy of the payload per frame. The
 * bytes are what the generated encoders (src/gen) produce, which is also what
 * Go's ttrpc produces: known fields in number order, proto3 defaults left out.
 * The decoders read what the generated ones read, but hand out the payload as
 * a view instead of a copy; the tests hold both pairs to the same results.
 */

/** What a Request envelope carries. */
export interface RequestEnvelope {
  service: string;
  method: string;
  payload: Uint8Array;
  /** Nanoseconds left for the call; 0n for none. */
  timeoutNano: bigint;
  metadata: readonly KeyValue[];
}

/** A failure status for a Response envelope (success sends none). */
export interface StatusEnvelope {
  code: number;
  message: string;
}

/** What a Response envelope carries; `status` is undefined when absent. */
export interface ResponseEnvelope {
  status: StatusEnvelope | undefined;
  payload: Uint8Array;
}

const TAG_SERVICE = 0x0a; // Request.service, field 1, length-delimited
const TAG_METHOD = 0x12; // Request.method, field 2
const TAG_REQUEST_PAYLOAD = 0x1a; // Request.payload, field 3
const TAG_TIMEOUT = 0x20; // Request.timeout_nano, field 4, varint
const TAG_METADATA = 0x2a; // Request.metadata, field 5
const TAG_KEY = 0x0a; // KeyValue.key, field 1
const TAG_VALUE = 0x12; // KeyValue.value, field 2
const TAG_STATUS = 0x0a; // Response.status, field 1
const TAG_RESPONSE_PAYLOAD = 0x12; // Response.payload, field 2
const TAG_CODE = 0x08; // Status.code, field 1, varint
const TAG_MESSAGE = 0x12; // Status.message, field 2

/** A Request frame (type 1) in one buffer. Throws OversizedMessageError over 4 MiB. */
export function encodeRequestFrame(streamId: number, flags: number, request: RequestEnvelope): Buffer {
  const serviceLength = Buffer.byteLength(request.service);
  const methodLength = Buffer.byteLength(request.method);
  const payloadLength = request.payload.length;
  let size = stringFieldSize(serviceLength) + stringFieldSize(methodLength) + stringFieldSize(payloadLength);
  if (request.timeoutNano !== 0n) size += 1 + varint64Size(request.timeoutNano);
  const entrySizes: number[] = [];
  for (const { key, value } of request.metadata) {
    const entry = stringFieldSize(Buffer.byteLength(key)) + stringFieldSize(Buffer.byteLength(value));
    entrySizes.push(entry);
    size += 1 + varintSize(entry) + entry;
  }
  assertDataLength(size);

  const frame = Buffer.allocUnsafe(FRAME_HEADER_LENGTH + size);
  writeFrameHeader(frame, 0, size, streamId, MessageType.Request, flags);
  let pos = FRAME_HEADER_LENGTH;
  pos = writeString(frame, pos, TAG_SERVICE, request.service, serviceLength);
  pos = writeString(frame, pos, TAG_METHOD, request.method, methodLength);
  pos = writeBytes(frame, pos, TAG_REQUEST_PAYLOAD, request.payload);
  if (request.timeoutNano !== 0n) {
    frame[pos++] = TAG_TIMEOUT;
    pos = writeVarint64(frame, pos, request.timeoutNano);
  }
  request.metadata.forEach(({ key, value }, index) => {
    frame[pos++] = TAG_METADATA;
    pos = writeVarint(frame, pos, entrySizes[index]);
    pos = writeString(frame, pos, TAG_KEY, key, Buffer.byteLength(key));
    pos = writeString(frame, pos, TAG_VALUE, value, Buffer.byteLength(value));
  });
  return frame;
}

/**
 * A Response frame (type 2) in one buffer: the payload on success, only the
 * status on failure. A success with an empty payload is a frame of length 0.
 * Throws OversizedMessageError over 4 MiB.
 */
export function encodeResponseFrame(streamId: number, status: StatusEnvelope | undefined, payload: Uint8Array): Buffer {
  let statusSize = 0;
  let messageLength = 0;
  if (status !== undefined) {
    messageLength = Buffer.byteLength(status.message);
    statusSize = stringFieldSize(messageLength);
    if (status.code !== 0) statusSize += 1 + varint64Size(BigInt(status.code));
  }
  const size = (status === undefined ? 0 : 1 + varintSize(statusSize) + statusSize) + stringFieldSize(payload.length);
  assertDataLength(size);

  const frame = Buffer.allocUnsafe(FRAME_HEADER_LENGTH + size);
  writeFrameHeader(frame, 0, size, streamId, MessageType.Response, 0);
  let pos = FRAME_HEADER_LENGTH;
  if (status !== undefined) {
    frame[pos++] = TAG_STATUS;
    pos = writeVarint(frame, pos, statusSize);
    if (status.code !== 0) {
      frame[pos++] = TAG_CODE;
      pos = writeVarint64(frame, pos, BigInt(status.code));
    }
    pos = writeString(frame, pos, TAG_MESSAGE, status.message, messageLength);
  }
  writeBytes(frame, pos, TAG_RESPONSE_PAYLOAD, payload);
  return frame;
}

/** Size of a length-delimited field of `length` bytes; 0 when left out (empty). */
function stringFieldSize(length: number): number {
  return length === 0 ? 0 : 1 + varintSize(length) + length;
}

function varintSize(value: number): number {
  let size = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 128);
    size++;
  }
  return size;
}

/** Size of an int64 varint: negative values take 10 bytes (two's complement). */
function varint64Size(value: bigint): number {
  let rest = BigInt.asUintN(64, value);
  let size = 1;
  while (rest >= 0x80n) {
    rest >>= 7n;
    size++;
  }
  return size;
}

function writeVarint(target: Buffer, pos: number, value: number): number {
  while (value >= 0x80) {
    target[pos++] = (value & 0x7f) | 0x80;
    value = Math.floor(value / 128);
  }
  target[pos++] = value;
  return pos;
}

function writeVarint64(target: Buffer, pos: number, value: bigint): number {
  let rest = BigInt.asUintN(64, value);
  while (rest >= 0x80n) {
    target[pos++] = Number(rest & 0x7fn) | 0x80;
    rest >>= 7n;
  }
  target[pos++] = Number(rest);
  return pos;
}

function writeString(target: Buffer, pos: number, tag: number, value: string, length: number): number {
  if (length === 0) return pos;
  target[pos++] = tag;
  pos = writeVarint(target, pos, length);
  return pos + target.write(value, pos, length, "utf8");
}

function writeBytes(target: Buffer, pos: number, tag: number, value: Uint8Array): number {
  if (value.length === 0) return pos;
  target[pos++] = tag;
  pos = writeVarint(target, pos, value.length);
  target.set(value, pos);
  return pos + value.length;
}

/** Decodes a Request envelope; throws an Error for bytes that are not one. */
export function decodeRequest(data: Uint8Array): RequestEnvelope {
  const reader = new Reader(data);
  const request: RequestEnvelope = { service: "", method: "", payload: EMPTY, timeoutNano: 0n, metadata: NO_PAIRS };
  let metadata: KeyValue[] | undefined;
  while (reader.more()) {
    const tag = reader.uint32();
    if (tag === TAG_SERVICE) request.service = reader.string();
    else if (tag === TAG_METHOD) request.method = reader.string();
    else if (tag === TAG_REQUEST_PAYLOAD) request.payload = reader.bytes();
    else if (tag === TAG_TIMEOUT) request.timeoutNano = reader.int64();
    else if (tag === TAG_METADATA) (metadata ??= []).push(decodeKeyValue(reader.bytes()));
    else reader.skip(tag);
  }
  if (metadata !== undefined) request.metadata = metadata;
  return request;
}

/** Decodes a Response envelope; throws an Error for bytes that are not one. */
export function decodeResponse(data: Uint8Array): ResponseEnvelope {
  const reader = new Reader(data);
  const response: ResponseEnvelope = { status: undefined, payload: EMPTY };
  while (reader.more()) {
    const tag = reader.uint32();
    if (tag === TAG_STATUS) response.status = decodeStatus(reader.bytes());
    else if (tag === TAG_RESPONSE_PAYLOAD) response.payload = reader.bytes();
    else reader.skip(tag);
  }
  return response;
}

function decodeKeyValue(data: Uint8Array): KeyValue {
  const reader = new Reader(data);
  const pair: KeyValue = { key: "", value: "" };
  while (reader.more()) {
    const tag = reader.uint32();
    if (tag === TAG_KEY) pair.key = reader.string();
    else if (tag === TAG_VALUE) pair.value = reader.string();
    else reader.skip(tag);
  }
  return pair;
}

function decodeStatus(data: Uint8Array): StatusEnvelope {
  const reader = new Reader(data);
  const status: StatusEnvelope = { code: 0, message: "" };
  while (reader.more()) {
    const tag = reader.uint32();
    if (tag === TAG_CODE) status.code = reader.uint32() | 0;
    else if (tag === TAG_MESSAGE) status.message = reader.string();
    else reader.skip(tag); // details (google.protobuf.Any) are not used by ttrpc
  }
  return status;
}

/** Payloads are Buffers, an absent one too. */
const EMPTY = Buffer.alloc(0);
const NO_PAIRS: readonly KeyValue[] = Object.freeze([]);
/** How deep unknown groups may nest before a message counts as malformed. */
const MAX_GROUP_DEPTH = 100;

/** Reads protobuf wire format from a buffer, refusing anything truncated or malformed. */
class Reader {
  private readonly data: Buffer;
  private pos = 0;

  constructor(data: Uint8Array) {
    this.data = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.length);
  }

  more(): boolean {
    return this.pos < this.data.length;
  }

  /** A varint's low 32 bits, unsigned (tags, lengths, int32 fields). */
  uint32(): number {
    let value = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      const byte = this.byte();
      if (shift < 32) value |= (byte & 0x7f) << shift;
      if (byte < 0x80) return value >>> 0;
    }
    throw new Error("varint longer than 10 bytes");
  }

  int64(): bigint {
    // The first 7 bytes (49 bits, exact in a number) without a BigInt per
    // byte: a deadline of seconds in nanoseconds takes 5.
    let low = 0;
    for (let shift = 0; shift < 49; shift += 7) {
      const byte = this.byte();
      low += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return BigInt(low);
    }
    let value = BigInt(low);
    for (let shift = 49n; shift < 70n; shift += 7n) {
      const byte = this.byte();
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return BigInt.asIntN(64, value);
    }
    throw new Error("varint longer than 10 bytes");
  }

  /** A length-delimited field, as a view. */
  bytes(): Uint8Array {
    const length = this.uint32();
    const start = this.pos;
    if (length > this.data.length - start) throw new Error("premature end of data");
    this.pos = start + length;
    return this.data.subarray(start, this.pos);
  }

  string(): string {
    const length = this.uint32();
    const start = this.pos;
    if (length > this.data.length - start) throw new Error("premature end of data");
    this.pos = start + length;
    return this.data.toString("utf8", start, this.pos);
  }

  /** Skips the value of an unknown field with this tag. */
  skip(tag: number, depth = 0): void {
    const field = tag >>> 3;
    if (field === 0) throw new Error("field number 0");
    switch (tag & 7) {
      case 0:
        this.uint32();
        return;
      case 1:
        return this.advance(8);
      case 2:
        this.bytes();
        return;
      case 3:
        if (depth === MAX_GROUP_DEPTH) throw new Error("groups nested too deeply");
        for (;;) {
          const inner = this.uint32();
          if ((inner & 7) === 4) {
            if (inner >>> 3 !== field) throw new Error("mismatched end of group");
            return;
          }
          this.skip(inner, depth + 1);
        }
      case 5:
        return this.advance(4);
      default:
        throw new Error(`unexpected wire type ${tag & 7}`);
    }
  }

  private byte(): number {
    if (this.pos >= this.data.length) throw new Error("premature end of data");
    return this.data[this.pos++];
  }

  private advance(count: number): void {
    if (count > this.data.length - this.pos) throw new Error("premature end of data");
    this.pos += count;
  }
}
