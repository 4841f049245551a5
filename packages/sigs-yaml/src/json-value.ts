/**
 * The values sigs.k8s.io/yaml's encoding side starts from: what Go's
 * encoding/json writes, in JavaScript.
 */
import { compareBytes } from "./json.js";

/**
 * A value in the shape encoding/json writes it: objects (a Go struct, its
 * fields in their order) and Maps (a Go map, keys as Go writes them:
 * sorted), arrays, text, numbers (bigint for 64-bit integers), booleans,
 * null. Key order matters only for which error Go reports first.
 */
export type JsonValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | readonly JsonValue[]
  | ReadonlyMap<string, JsonValue>
  | { readonly [key: string]: JsonValue };

/** The entries of an object or a Map, in their order. */
export function jsonEntries(
  object: ReadonlyMap<string, JsonValue> | { readonly [key: string]: JsonValue },
): [string, JsonValue][] {
  return object instanceof Map ? [...object] : Object.entries(object);
}

/** A Go map's JSON form: its entries in the order encoding/json writes them (keys sorted by their bytes). */
export function goMap<T extends JsonValue>(
  entries: Iterable<readonly [string, T]> | { readonly [key: string]: T },
): ReadonlyMap<string, T> {
  const list = Symbol.iterator in entries ? [...(entries as Iterable<readonly [string, T]>)] : Object.entries(entries);
  return new Map(list.sort(([a], [b]) => compareBytes(a, b)));
}
