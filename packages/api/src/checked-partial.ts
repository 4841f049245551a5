/**
 * Turning a partial message from user code into a full one without losing
 * anything.
 *
 * ts-proto's `fromPartial` trusts its input: it drops keys it does not know
 * (a typo such as `anotations` vanishes), and its `DeepPartial` type lets
 * 64-bit integers be strings, which it hands to `BigInt()` as they are, so
 * `""` becomes 0, `"0x10"` becomes 16 and `"1G"` fails with a message that
 * names no field. `fromPartialChecked` refuses all of that, naming the field.
 *
 * It learns the message's shape from the generated code itself: the input's
 * structure with every scalar replaced by 0 goes through `fromPartial`, which
 * fills in every known field and turns exactly the 64-bit ones into bigints.
 * Whether such a field is signed, the encoder tells: it refuses -1 for an
 * unsigned one.
 */
import type { DeepPartial, MessageFns } from "./gen/nri/pkg/api/v1alpha1/api.js";

/** Thrown by `fromPartialChecked`; `path` is the field, e.g. `linux.resources.memory.limit.value`. */
export class PartialMessageError extends TypeError {
  override readonly name = "PartialMessageError";

  constructor(
    /** Where the message came from, e.g. `createContainer result`. */
    readonly what: string,
    /** The field, from the message's root; "" for the message itself. */
    readonly path: string,
    /** What is wrong with it. */
    readonly reason: string,
  ) {
    super(`${what}: ${path === "" ? "" : `${path}: `}${reason}`);
  }
}

type Segment = string | number;

const INT64_RANGE = [-(1n << 63n), (1n << 63n) - 1n] as const;
const UINT64_RANGE = [0n, (1n << 64n) - 1n] as const;
const DECIMAL = /^-?[0-9]+$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function formatPath(path: readonly Segment[]): string {
  return path
    .map((segment, i) =>
      typeof segment === "number"
        ? `[${segment}]`
        : /^[A-Za-z_][A-Za-z0-9_]*$/.test(segment)
          ? `${i === 0 ? "" : "."}${segment}`
          : `[${JSON.stringify(segment)}]`,
    )
    .join("");
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "bigint") return `${value}n`;
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object" && value !== null) return "an object";
  return String(value);
}

/** The input's structure, every scalar replaced by 0 (which `fromPartial` keeps, or turns into 0n for 64-bit fields). */
function skeleton(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(skeleton);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, skeleton(item)]));
  if (typeof value === "string" || typeof value === "number" || typeof value === "bigint") return 0;
  return value;
}

/** Only the branch of `path`, ending in `leaf`: what the encoder is asked to take to tell int64 from uint64. */
function branch(path: readonly Segment[], leaf: bigint): unknown {
  return path.reduceRight<unknown>(
    (inner, segment) => (typeof segment === "number" ? [inner] : { [segment]: inner }),
    leaf,
  );
}

class Checker<T> {
  readonly #unsigned = new Map<string, boolean>();

  constructor(
    readonly type: MessageFns<T>,
    readonly what: string,
  ) {}

  fail(path: readonly Segment[], reason: string): never {
    throw new PartialMessageError(this.what, formatPath(path), reason);
  }

  isUnsigned(path: readonly Segment[]): boolean {
    const key = path.map((segment) => (typeof segment === "number" ? 0 : segment)).join("\0");
    let unsigned = this.#unsigned.get(key);
    if (unsigned === undefined) {
      try {
        this.type.encode(this.type.fromPartial(branch(path, -1n) as never));
        unsigned = false;
      } catch {
        unsigned = true;
      }
      this.#unsigned.set(key, unsigned);
    }
    return unsigned;
  }

  int64(value: unknown, path: readonly Segment[]): void {
    const unsigned = this.isUnsigned(path);
    const kind = unsigned ? "a uint64" : "an int64";
    const expected = `expected ${kind} (a safe integer, a bigint or a string of decimal digits), got ${describe(value)}`;
    let big: bigint;
    if (typeof value === "bigint") big = value;
    else if (typeof value === "number" && Number.isSafeInteger(value)) big = BigInt(value);
    else if (typeof value === "string" && DECIMAL.test(value)) big = BigInt(value);
    else if (typeof value === "number" && Number.isInteger(value)) {
      this.fail(path, `${expected} (beyond 2^53 a number is inexact; pass a bigint or a string)`);
    } else this.fail(path, expected);
    const [min, max] = unsigned ? UINT64_RANGE : INT64_RANGE;
    if (big < min || big > max) this.fail(path, `expected ${kind}, got ${big} (out of range)`);
  }

  walk(input: unknown, shape: unknown, path: Segment[]): void {
    if (input === undefined || input === null) return;
    if (typeof shape === "bigint") return this.int64(input, path);
    if (Array.isArray(shape)) {
      if (!Array.isArray(input)) this.fail(path, `expected a list, got ${describe(input)}`);
      for (const [i, item] of input.entries()) this.walk(item, shape[i], [...path, i]);
      return;
    }
    if (isRecord(shape)) {
      if (!isRecord(input)) this.fail(path, `expected an object, got ${describe(input)}`);
      for (const [key, value] of Object.entries(input)) {
        if (value === undefined) continue;
        if (!Object.hasOwn(shape, key)) {
          const known = Object.keys(shape);
          this.fail([...path, key], `unknown field${known.length > 0 ? ` (known here: ${known.join(", ")})` : ""}`);
        }
        this.walk(value, shape[key], [...path, key]);
      }
    }
  }
}

/**
 * `type.fromPartial(partial)`, after checking that nothing in `partial` would
 * be lost or changed on the way: every key must be a field of its message,
 * and every 64-bit integer a bigint, a safe-integer number or a string of
 * decimal digits, in its type's range. Throws a `PartialMessageError` that
 * starts with `what` and names the field otherwise.
 *
 * ```ts
 * fromPartialChecked(ContainerUpdate, { containerId: "c1", linux: { resources: { memory: { limit: { value: "1G" } } } } }, "my update");
 * // PartialMessageError: my update: linux.resources.memory.limit.value: expected an int64 (...), got "1G"
 * ```
 */
export function fromPartialChecked<T>(type: MessageFns<T>, partial: NoInfer<DeepPartial<T>>, what: string): T {
  const checker = new Checker(type, what);
  let shape: unknown;
  try {
    shape = type.fromPartial(skeleton(partial) as never);
  } catch (error) {
    throw new PartialMessageError(what, "", `not a message: ${error instanceof Error ? error.message : String(error)}`);
  }
  checker.walk(partial, shape, []);
  return type.fromPartial(partial as never);
}
