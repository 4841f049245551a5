/**
 * SynchronizeRequest to protobuf bytes, the same bytes as the generated
 * `SynchronizeRequest.encode(request).finish()`, several times faster when
 * the code is still cold, as it is at a runtime's start: a synchronization
 * carries every pod and container of the node (10,000 containers make a
 * 1.8 MB message). The generated encoder makes five or six calls per field
 * and allocates per map entry (Object.entries, a closure, an entry object)
 * and per int64 check, which the interpreter and the garbage collector pay
 * for before the JIT has caught up. Here the top-level fields of pods and
 * containers are written straight into one buffer, in the generated order,
 * one call per field; nested messages (mounts, hooks, Linux settings, …)
 * are written by their generated encoders, and a pod or container with a
 * value not of its declared type (a number out of its range, a string
 * field that holds no string) is left whole to the generated encoder, so
 * that it fails (or coerces) exactly as it does.
 *
 * `sync-encoding.test.ts` proves the bytes equal, and fails when the
 * generated Container or PodSandbox gains a field this file does not write.
 */
import {
  CDIDevice,
  Container,
  Hooks,
  Image,
  LinuxContainer,
  LinuxPodSandbox,
  type MessageType,
  Mount,
  PodSandbox,
  POSIXRlimit,
  type SynchronizeRequest,
  User,
} from "@nri-ts/api";

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** The fields written below, in the generated order (the test compares them with the generated messages'). */
export const CONTAINER_FIELDS = [
  "id",
  "podSandboxId",
  "name",
  "state",
  "labels",
  "annotations",
  "args",
  "env",
  "mounts",
  "hooks",
  "linux",
  "pid",
  "rlimits",
  "createdAt",
  "startedAt",
  "finishedAt",
  "exitCode",
  "statusReason",
  "statusMessage",
  "CDIDevices",
  "user",
  "image",
] as const;
export const POD_FIELDS = ["id", "name", "uid", "namespace", "labels", "annotations", "runtimeHandler", "linux", "pid", "ips"] as const;

/** What a pod or container takes, about, for the first buffer (a plain container takes 150 to 300 bytes). */
const BYTES_PER_OBJECT = 192;

/** Thrown (and caught below) where a value is not of its field's declared type. */
const NOT_PLAIN = new Error("not of its declared type");

/** A growing buffer of protobuf fields; tags are single bytes (field numbers 1 to 15, or 16 to 31 below 0x80 with their type). */
class FieldWriter {
  #bytes: Uint8Array;
  #text: Buffer;
  #pos = 0;
  readonly #forks: number[] = [];
  readonly #int64 = new DataView(new ArrayBuffer(8));

  /** @param size the bytes expected: growing a buffer of megabytes step by step costs copies and old-space collections */
  constructor(size: number) {
    this.#bytes = new Uint8Array(size);
    this.#text = Buffer.from(this.#bytes.buffer);
  }

  #ensure(room: number): void {
    if (this.#pos + room <= this.#bytes.length) return;
    let size = this.#bytes.length * 2;
    while (size < this.#pos + room) size *= 2;
    const bytes = new Uint8Array(size);
    bytes.set(this.#bytes.subarray(0, this.#pos));
    this.#bytes = bytes;
    this.#text = Buffer.from(bytes.buffer);
  }

  #varint(value: number): void {
    const bytes = this.#bytes;
    while (value > 0x7f) {
      bytes[this.#pos++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    bytes[this.#pos++] = value;
  }

  /** The tag of a length-delimited or varint field (a multi-byte tag for field numbers from 16). */
  #tag(tag: number): void {
    this.#ensure(5);
    this.#varint(tag);
  }

  /** Where the next byte goes, and how many fields are open: what `rewind` goes back to. */
  get mark(): [position: number, forks: number] {
    return [this.#pos, this.#forks.length];
  }

  rewind([position, forks]: [number, number]): void {
    this.#pos = position;
    this.#forks.length = forks;
  }

  string(tag: number, value: string): void {
    if (typeof value !== "string") throw NOT_PLAIN;
    const length = value.length;
    this.#ensure(length + 7);
    const bytes = this.#bytes;
    let pos = this.#pos;
    if (tag > 0x7f) {
      bytes[pos++] = (tag & 0x7f) | 0x80;
      bytes[pos++] = tag >>> 7;
    } else {
      bytes[pos++] = tag;
    }
    if (length < 0x80) {
      const start = pos;
      bytes[pos++] = length;
      let i = 0;
      for (; i < length; i++) {
        const code = value.charCodeAt(i);
        if (code > 0x7f) break;
        bytes[pos++] = code;
      }
      if (i === length) {
        this.#pos = pos;
        return;
      }
      pos = start;
    }
    // Not ASCII, or long: Node's UTF-8 writes what TextEncoder writes (a lone surrogate as U+FFFD).
    const byteLength = Buffer.byteLength(value, "utf8");
    this.#pos = pos;
    this.#ensure(byteLength + 5);
    this.#varint(byteLength);
    this.#pos += this.#text.write(value, this.#pos, byteLength, "utf8");
  }

  strings(tag: number, values: readonly string[]): void {
    if (!Array.isArray(values)) throw NOT_PLAIN;
    for (let i = 0; i < values.length; i++) this.string(tag, values[i]!);
  }

  /** A map<string, string> field: one entry message per key, an empty key or value left out. */
  stringMap(tag: number, map: { readonly [key: string]: string }): void {
    if (typeof map !== "object" || map === null) throw NOT_PLAIN;
    // (for-in visits own keys in Object.entries' order, without making an array)
    for (const key in map) {
      if (!Object.hasOwn(map, key)) continue;
      const value = map[key]!;
      this.fork(tag);
      if (key !== "") this.string(10, key);
      if (value !== "") this.string(18, value);
      this.join();
    }
  }

  uint32(tag: number, value: number): void {
    if (value >>> 0 !== value) throw NOT_PLAIN;
    this.#tag(tag);
    this.#varint(value);
  }

  int32(tag: number, value: number): void {
    if ((value | 0) !== value) throw NOT_PLAIN;
    if (value >= 0) return this.uint32(tag, value);
    this.#tag(tag);
    this.#ensure(10);
    this.#int64.setBigInt64(0, BigInt(value), true);
    this.#varint64(this.#int64.getUint32(0, true), this.#int64.getUint32(4, true));
  }

  int64(tag: number, value: bigint): void {
    if (typeof value !== "bigint" || value < INT64_MIN || value > INT64_MAX) throw NOT_PLAIN;
    this.#tag(tag);
    this.#ensure(10);
    this.#int64.setBigInt64(0, value, true);
    this.#varint64(this.#int64.getUint32(0, true), this.#int64.getUint32(4, true));
  }

  #varint64(lo: number, hi: number): void {
    const bytes = this.#bytes;
    while (hi !== 0 || lo > 0x7f) {
      bytes[this.#pos++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    bytes[this.#pos++] = lo;
  }

  bool(tag: number, value: boolean): void {
    this.#tag(tag);
    this.#bytes[this.#pos++] = value ? 1 : 0;
  }

  /** A field of raw, already encoded bytes (a nested message). */
  bytes(tag: number, value: Uint8Array): void {
    this.#tag(tag);
    this.#ensure(value.length + 5);
    this.#varint(value.length);
    this.#bytes.set(value, this.#pos);
    this.#pos += value.length;
  }

  message<T>(tag: number, value: T, type: MessageType<T>): void {
    this.bytes(tag, type.encode(value).finish());
  }

  messages<T>(tag: number, values: readonly T[], type: MessageType<T>): void {
    if (!Array.isArray(values)) throw NOT_PLAIN;
    for (let i = 0; i < values.length; i++) this.message(tag, values[i]!, type);
  }

  /** Starts a length-delimited field; `join` ends it. One byte is kept for the length, widened when it needs more. */
  fork(tag: number): void {
    this.#tag(tag);
    this.#ensure(1);
    this.#forks.push(this.#pos++);
  }

  join(): void {
    const at = this.#forks.pop()!;
    const length = this.#pos - at - 1;
    if (length < 0x80) {
      this.#bytes[at] = length;
      return;
    }
    let width = 1;
    while (length >>> (7 * width) !== 0) width++;
    this.#ensure(width - 1);
    this.#bytes.copyWithin(at + width, at + 1, this.#pos);
    const end = this.#pos + width - 1;
    this.#pos = at;
    this.#varint(length);
    this.#pos = end;
  }

  /** The bytes written (a view of the buffer: no copy of megabytes). */
  finish(): Uint8Array {
    return this.#bytes.subarray(0, this.#pos);
  }
}

function writePod(writer: FieldWriter, pod: PodSandbox): void {
  if (pod.id !== "") writer.string(10, pod.id);
  if (pod.name !== "") writer.string(18, pod.name);
  if (pod.uid !== "") writer.string(26, pod.uid);
  if (pod.namespace !== "") writer.string(34, pod.namespace);
  writer.stringMap(42, pod.labels);
  writer.stringMap(50, pod.annotations);
  if (pod.runtimeHandler !== "") writer.string(58, pod.runtimeHandler);
  if (pod.linux !== undefined) writer.message(66, pod.linux, LinuxPodSandbox);
  if (pod.pid !== 0) writer.uint32(72, pod.pid);
  writer.strings(82, pod.ips);
}

function writeContainer(writer: FieldWriter, container: Container): void {
  if (container.id !== "") writer.string(10, container.id);
  if (container.podSandboxId !== "") writer.string(18, container.podSandboxId);
  if (container.name !== "") writer.string(26, container.name);
  if (container.state !== 0) writer.int32(32, container.state);
  writer.stringMap(42, container.labels);
  writer.stringMap(50, container.annotations);
  writer.strings(58, container.args);
  writer.strings(66, container.env);
  writer.messages(74, container.mounts, Mount);
  if (container.hooks !== undefined) writer.message(82, container.hooks, Hooks);
  if (container.linux !== undefined) writer.message(90, container.linux, LinuxContainer);
  if (container.pid !== 0) writer.uint32(96, container.pid);
  writer.messages(106, container.rlimits, POSIXRlimit);
  if (container.createdAt !== 0n) writer.int64(112, container.createdAt);
  if (container.startedAt !== 0n) writer.int64(120, container.startedAt);
  if (container.finishedAt !== 0n) writer.int64(128, container.finishedAt);
  if (container.exitCode !== 0) writer.int32(136, container.exitCode);
  if (container.statusReason !== "") writer.string(146, container.statusReason);
  if (container.statusMessage !== "") writer.string(154, container.statusMessage);
  writer.messages(162, container.CDIDevices, CDIDevice);
  if (container.user !== undefined) writer.message(170, container.user, User);
  if (container.image !== undefined) writer.message(178, container.image, Image);
}

/**
 * Writes one pod or container as a nested field; one with a value not of its
 * declared type is written by the generated encoder instead, which fails
 * (or coerces the value) exactly as it would have.
 */
function writeNested<T>(writer: FieldWriter, tag: number, value: T, write: (writer: FieldWriter, value: T) => void, type: MessageType<T>): void {
  const mark = writer.mark;
  try {
    writer.fork(tag);
    write(writer, value);
    writer.join();
  } catch (error) {
    if (error !== NOT_PLAIN) throw error;
    writer.rewind(mark);
    writer.message(tag, value, type);
  }
}

/** The protobuf bytes of a SynchronizeRequest. */
export function encodeSynchronizeRequest(request: SynchronizeRequest): Uint8Array {
  const { pods, containers } = request;
  const writer = new FieldWriter(BYTES_PER_OBJECT * (pods.length + containers.length) + 64);
  for (let i = 0; i < pods.length; i++) writeNested(writer, 10, pods[i]!, writePod, PodSandbox);
  for (let i = 0; i < containers.length; i++) writeNested(writer, 18, containers[i]!, writeContainer, Container);
  if (request.more !== false) writer.bool(24, request.more);
  return writer.finish();
}
