/**
 * The fields an `expect:` entry may name in what it matches (an adjustment,
 * updates, evictions, failures, a container), so that a misspelled field is
 * a scenario error with its line and column. Matching alone cannot tell:
 * it ignores what a report does not have, and `0`, `""` and `false` match
 * an absent value, so `{exitcode: 0}` would pass against any container.
 *
 * Protocol messages are learned from the generated code, as @nri-ts/api's
 * `fromPartialChecked` learns them: the expected value's structure, every
 * scalar replaced by 0, goes through the message's `fromPartial`, which
 * fills in every field each level has (a map keeps its keys).
 */
import type { MessageType } from "@nri-ts/api";
import type { YamlValue } from "./yaml-value.js";

/** What an expectation may write at a place. */
export type Shape =
  /** Anything: a value, or a mapping of data (labels, env, owners); no field names to check. */
  | "any"
  /** A mapping with these fields. */
  | { readonly fields: Readonly<Record<string, Shape>> }
  /** A list of items of a shape. */
  | { readonly list: Shape }
  /** A mapping of data keys to values of a shape. */
  | { readonly map: Shape }
  /** A protocol message as reports show it (wrappers unwrapped, defaults left out). */
  | { readonly message: MessageType<unknown> };

/** Records an issue for each field `value` names that `shape` does not have, at any depth. */
export function checkShape(value: YamlValue, shape: Shape): void {
  if (shape === "any" || !value.present) return;
  if ("list" in shape) {
    if (value.kind === "list") for (const item of value.list() ?? []) checkShape(item, shape.list);
    return;
  }
  if (value.kind !== "mapping") return;
  const entries = value.entries() ?? [];
  if ("map" in shape) {
    for (const [, item] of entries) checkShape(item, shape.map);
  } else if ("fields" in shape) {
    const known = Object.keys(shape.fields);
    for (const [key, item] of entries) {
      const inner = shape.fields[key];
      if (inner === undefined) value.unknownField(key, known);
      else checkShape(item, inner);
    }
  } else {
    checkMessage(value, entries, shape.message);
  }
}

function checkMessage(value: YamlValue, entries: [string, YamlValue][], type: MessageType<unknown>): void {
  const known = Object.keys(type.fromPartial({}) as object);
  for (const [key, item] of entries) {
    if (!known.includes(key)) {
      value.unknownField(key, known);
      continue;
    }
    let probe: unknown;
    try {
      probe = (type.fromPartial({ [key]: skeleton(item.plain()) } as never) as Record<string, unknown>)[key];
    } catch {
      // a value of the wrong kind (a mapping for a list, ...): matching says so
      continue;
    }
    checkProbe(item, probe);
  }
}

/** Compares the fields written with those `fromPartial` filled in. */
function checkProbe(value: YamlValue, probe: unknown): void {
  if (Array.isArray(probe)) {
    if (value.kind === "list") for (const [i, item] of (value.list() ?? []).entries()) checkProbe(item, probe[i]);
    return;
  }
  if (typeof probe !== "object" || probe === null || value.kind !== "mapping") return;
  const known = Object.keys(probe);
  for (const [key, item] of value.entries() ?? []) {
    if (!Object.hasOwn(probe, key)) value.unknownField(key, known);
    else checkProbe(item, (probe as Record<string, unknown>)[key]);
  }
}

/** The value's structure, every scalar replaced by 0 (which `fromPartial` takes for any scalar field). */
function skeleton(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(skeleton);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, skeleton(item)]));
  }
  return value === null ? null : 0;
}
