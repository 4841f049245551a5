/**
 * Presence wrappers (`Optional*` messages) and the integer checks behind them.
 *
 * The protocol marks "this resource is set" by sending a small wrapper
 * message, even when the value inside is zero; an absent wrapper means
 * "leave it alone". These constructors take plain values, check that they fit
 * the protobuf type, and return the generated wrapper objects.
 */
import type {
  OptionalBool,
  OptionalFileMode,
  OptionalInt,
  OptionalInt32,
  OptionalInt64,
  OptionalRepeatedString,
  OptionalString,
  OptionalUInt32,
  OptionalUInt64,
} from "./gen/nri/pkg/api/v1alpha1/api.js";

/** A 64-bit protobuf integer as callers give it: a safe-integer number or a bigint. */
export type Int64Like = number | bigint;

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

function toBigIntInRange(value: Int64Like, min: bigint, max: bigint, kind: string): bigint {
  let big: bigint;
  if (typeof value === "bigint") {
    big = value;
  } else if (Number.isSafeInteger(value)) {
    big = BigInt(value);
  } else {
    const hint = Number.isInteger(value) ? " (beyond 2^53 a number is inexact; pass a bigint)" : "";
    throw new RangeError(`expected ${kind}, got ${value}${hint}`);
  }
  if (big < min || big > max) throw new RangeError(`expected ${kind}, got ${big} (out of range)`);
  return big;
}

function toNumberInRange(value: number, min: number, max: number, kind: string): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`expected ${kind}, got ${value}`);
  }
  return value;
}

/** Checks a signed 64-bit integer and returns it as a bigint; throws RangeError otherwise. */
export function toInt64(value: Int64Like): bigint {
  return toBigIntInRange(value, INT64_MIN, INT64_MAX, "an int64");
}

/** Checks an unsigned 64-bit integer and returns it as a bigint; throws RangeError otherwise. */
export function toUInt64(value: Int64Like): bigint {
  return toBigIntInRange(value, 0n, UINT64_MAX, "a uint64");
}

/** Checks a signed 32-bit integer; throws RangeError otherwise. */
export function toInt32(value: number): number {
  return toNumberInRange(value, -0x8000_0000, 0x7fff_ffff, "an int32");
}

/** Checks an unsigned 32-bit integer; throws RangeError otherwise. */
export function toUInt32(value: number): number {
  return toNumberInRange(value, 0, 0xffff_ffff, "a uint32");
}

export function optionalString(value: string): OptionalString {
  return { value };
}

/** Copies the list, so later changes to the caller's array do not leak in. */
export function optionalRepeatedString(value: readonly string[]): OptionalRepeatedString {
  return { value: [...value] };
}

/** `OptionalInt` carries an int64 on the wire (Go's `int`), e.g. an OOM score adjustment. */
export function optionalInt(value: Int64Like): OptionalInt {
  return { value: toInt64(value) };
}

export function optionalInt32(value: number): OptionalInt32 {
  return { value: toInt32(value) };
}

export function optionalUInt32(value: number): OptionalUInt32 {
  return { value: toUInt32(value) };
}

export function optionalInt64(value: Int64Like): OptionalInt64 {
  return { value: toInt64(value) };
}

export function optionalUInt64(value: Int64Like): OptionalUInt64 {
  return { value: toUInt64(value) };
}

export function optionalBool(value: boolean): OptionalBool {
  return { value };
}

/** A file mode such as `0o666` (a uint32 on the wire). */
export function optionalFileMode(value: number): OptionalFileMode {
  return { value: toUInt32(value) };
}
