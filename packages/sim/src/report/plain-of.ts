/**
 * The types of what `plain` makes of protocol messages, so that reports'
 * views read typed: `report.steps[1]?.adjustment?.linux?.resources?.memory?.limit`
 * is a `number | string`, not a `Plain` to narrow by hand.
 */
import type { ContainerAdjustment, LinuxResources } from "@nri-ts/api";
import { type Plain, plain } from "./plain.js";

/**
 * What `plain(value)` gives for a value of type `T`: `Optional*` wrappers
 * unwrapped, 64-bit integers as numbers (as decimal strings beyond 2^53),
 * and every field optional, since defaults are left out.
 */
export type PlainOf<T> = T extends bigint
  ? number | string
  : T extends string | number | boolean
    ? T
    : T extends readonly (infer Item)[]
      ? PlainOf<Item>[]
      : T extends { value: infer Value }
        ? [keyof T] extends ["value"]
          ? PlainOf<Value>
          : PlainMessage<T>
        : T extends object
          ? string extends keyof T
            ? { [key: string]: PlainOf<T[keyof T]> }
            : PlainMessage<T>
          : never;

/** A message's fields, each optional; a map's entries are all kept. */
export type PlainMessage<T> = { [K in keyof T]?: PlainOf<NonNullable<T[K]>> };

/** A step's merged adjustment, as reports show it. */
export type AdjustmentView = PlainOf<ContainerAdjustment>;
/** Linux resources (of an update, or of a container), as reports show them. */
export type ResourcesView = PlainOf<LinuxResources>;

/** `plain(value)`, typed as what it gives for `T`. */
export function plainOf<T>(value: T): PlainOf<T> | undefined {
  return plain(value) as PlainOf<T> | undefined;
}

/** A typed view (made of plain values) as the untyped matching of `expect:` takes it. */
export function asPlain(view: object | undefined): { [key: string]: Plain } | undefined {
  return view as { [key: string]: Plain } | undefined;
}
