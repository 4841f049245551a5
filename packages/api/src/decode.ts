/**
 * Decoding and encoding protocol messages safely.
 *
 * ts-proto's generated `decode` trusts its input more than Go does: a zero
 * tag or a stray end-group tag quietly ends a message, a nested message may
 * run past its declared length, and invalid UTF-8 becomes U+FFFD. Garbage
 * can then come back as a plausible, partly filled message. `decodeMessage`
 * checks what Go's decoder checks, and turns every failure into a
 * `ProtocolDecodeError`.
 *
 * One gap remains: the contents of packed repeated fields (scheduler and
 * memory policy flags, additional group ids) are not checked separately, so
 * a last value cut short there goes unnoticed when the bytes after it
 * happen to parse.
 */
import * as api from "./gen/nri/pkg/api/v1alpha1/api.js";
import { BinaryReader } from "@bufbuild/protobuf/wire";
import { checkFraming, FramingError } from "./wire-framing.js";

/** Thrown by decodeMessage; the message names the type and what is wrong. */
export class ProtocolDecodeError extends Error {
  override readonly name = "ProtocolDecodeError";

  constructor(
    /** Full protobuf name, e.g. `nri.pkg.api.v1alpha1.Container`. */
    readonly typeName: string,
    /** Size of the input. */
    readonly byteLength: number,
    /** What is wrong, e.g. `invalid wire type 7 at offset 3`. */
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`cannot decode ${typeName} from ${byteLength} byte${byteLength === 1 ? "" : "s"}: ${reason}`, options);
  }
}

/** The generated message functions (`Container`, `CreateContainerRequest`, ...). */
export type MessageType<T> = api.MessageFns<T>;

let typeNames: Map<unknown, string> | undefined;

/** `nri.pkg.api.v1alpha1.<Name>` for a generated message type, or "message" for others. */
function typeName(type: MessageType<unknown>): string {
  typeNames ??= new Map(
    Object.entries(api)
      .filter(([, value]) => typeof value === "object" && value !== null && "decode" in value && "encode" in value)
      .map(([name, value]) => [value, `${api.protobufPackage}.${name.replaceAll("_", ".")}`]),
  );
  return typeNames.get(type) ?? "message";
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new Error("string field contains invalid UTF-8");
  }
}

/**
 * A reader that checks each message's framing as ts-proto starts decoding
 * it, and that each one ends exactly where its length says.
 *
 * It hooks the depth counter that ts-proto's decoders keep on their reader
 * (`__tsProtoDecodeDepth`, raised on entry, restored on exit): entry is the
 * moment a message's bytes are known to be a message. The tests for nested
 * misframing fail if a newer ts-proto stops doing this.
 */
class CheckingReader extends BinaryReader {
  readonly #bytes: Uint8Array;
  /** Expected end of each message being decoded, innermost last. */
  readonly #messageEnds: number[] = [];
  #depth = 0;
  /** The first message (the outermost included) that did not end where its length says, if any. */
  misframed: string | undefined;

  constructor(bytes: Uint8Array) {
    super(bytes, decodeUtf8);
    this.#bytes = bytes;
  }

  get __tsProtoDecodeDepth(): number {
    return this.#depth;
  }

  set __tsProtoDecodeDepth(depth: number) {
    if (depth > this.#depth) {
      const end = this.#messageEnds.length === 0 ? this.len : this.#nestedMessageEnd();
      checkFraming(this.#bytes, this.pos, end);
      this.#messageEnds.push(end);
    } else {
      const end = this.#messageEnds.pop();
      if (end !== undefined && this.pos !== end) {
        this.misframed ??= `message ending at offset ${end} was read up to offset ${this.pos}`;
      }
    }
    this.#depth = depth;
  }

  /**
   * Where the nested message starting here ends. Its bytes are the content
   * of a length-delimited field, so they directly follow the length: a
   * varint whose last byte is the one before, and whose other bytes have
   * their high bit set, unlike the last byte of the tag before them.
   */
  #nestedMessageEnd(): number {
    let start = this.pos - 1;
    while (start > 0 && (this.#bytes[start - 1]! & 0x80) !== 0) start--;
    let length = 0;
    for (let i = this.pos - 1; i >= start; i--) length = length * 128 + (this.#bytes[i]! & 0x7f);
    const end = this.pos + length;
    if (end > this.#messageEnds.at(-1)!) {
      throw new FramingError("nested message runs past the end of its parent", this.pos);
    }
    return end;
  }
}

/**
 * Decodes `bytes` as a message of `type`, e.g. `decodeMessage(Container, bytes)`.
 * It returns a whole message or throws: truncated input, garbage, invalid
 * wire types, over-long varints, misframed nested messages and invalid UTF-8
 * all become a ProtocolDecodeError. Unknown fields are skipped, as in Go.
 */
export function decodeMessage<T>(type: MessageType<T>, bytes: Uint8Array): T {
  const reader = new CheckingReader(bytes);
  let message: T;
  try {
    message = type.decode(reader);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ProtocolDecodeError(typeName(type), bytes.length, reason, { cause: error });
  }
  if (reader.misframed !== undefined) throw new ProtocolDecodeError(typeName(type), bytes.length, reader.misframed);
  return message;
}

/**
 * Encodes a message given in part, e.g.
 * `encodeMessage(Container, { id: "c1", exitCode: 127 })`: missing fields
 * take their defaults, 64-bit fields accept numbers and strings too, and
 * misspelt fields are type errors.
 */
export function encodeMessage<T, I extends api.Exact<api.DeepPartial<T>, I>>(
  type: MessageType<T>,
  message: I,
): Uint8Array {
  return type.encode(type.fromPartial(message)).finish();
}
