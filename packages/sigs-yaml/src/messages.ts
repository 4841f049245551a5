/**
 * NRI protocol messages as sigs.k8s.io/yaml marshals their Go structs (the
 * dumps of the Go logger and differ). First a message as Go's
 * encoding/json writes the Go struct of it: fields named by the
 * structs' JSON tags (the proto field names: `pod_sandbox_id`,
 * `CDI_devices`), every field `omitempty` (zero numbers, empty text, false,
 * empty lists and maps left out), a message that is there kept even when
 * empty (`{}`), map keys as they are and map entries kept whatever their
 * value, enums as numbers, 64-bit integers exact.
 */
import * as api from "@nri-ts/api";
import { type EncodeOptions, encodeSigsYaml } from "./encode.js";
import { goMap, type JsonValue } from "./json-value.js";

const shape = (object: object) => Object.keys(object).sort().join(",");

/**
 * A read-only map whose entries are made the first time it is read. Making
 * MAP_FIELDS runs `fromPartial` of every protocol message, which a program
 * that imports this package only to decode annotations never needs: made
 * on import, it cost every such program about 5 ms of CPU at start
 * (ts-proto's code, compiled for nothing; Node 26 on a busy machine).
 */
class ReadonlyMapOnFirstUse<K, V> implements ReadonlyMap<K, V> {
  #map: ReadonlyMap<K, V> | undefined;
  readonly #make: () => ReadonlyMap<K, V>;

  constructor(make: () => ReadonlyMap<K, V>) {
    this.#make = make;
  }

  #entries(): ReadonlyMap<K, V> {
    this.#map ??= this.#make();
    return this.#map;
  }

  get size(): number {
    return this.#entries().size;
  }

  get(key: K): V | undefined {
    return this.#entries().get(key);
  }

  has(key: K): boolean {
    return this.#entries().has(key);
  }

  forEach(callback: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.#entries()) callback.call(thisArg, value, key, this);
  }

  entries(): MapIterator<[K, V]> {
    return this.#entries().entries();
  }

  keys(): MapIterator<K> {
    return this.#entries().keys();
  }

  values(): MapIterator<V> {
    return this.#entries().values();
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.#entries()[Symbol.iterator]();
  }
}

/**
 * The map fields (Go `map[...]...`) of each protocol message, by the
 * message's shape: a decoded message has every field of its type, and in a
 * new message (ts-proto's fromPartial of nothing) a map is an empty
 * object where a message field is undefined. A field name alone does not
 * say it: `owners` is a map in OwningPlugins but a message in
 * ValidateContainerAdjustmentRequest. Made the first time it is read.
 */
export const MAP_FIELDS: ReadonlyMap<string, ReadonlySet<string>> = new ReadonlyMapOnFirstUse(() => {
  const byShape = new Map<string, ReadonlySet<string>>();
  for (const fns of Object.values(api)) {
    if (typeof fns !== "object" || fns === null || !("fromPartial" in fns) || !("decode" in fns)) continue;
    const base = (fns as api.MessageFns<object>).fromPartial({});
    const maps = Object.entries(base).filter(
      ([, value]) => value !== null && typeof value === "object" && !Array.isArray(value),
    );
    const fields = new Set(maps.map(([field]) => field));
    const known = byShape.get(shape(base));
    if (known && [...known].join() !== [...fields].join())
      throw new Error(`two protocol messages of fields ${shape(base)} differ in their maps`);
    byShape.set(shape(base), fields);
  }
  return byShape;
});

/** Field names whose JSON tag camelCase does not turn back into. */
const JSON_TAGS: Readonly<Record<string, string>> = { CDIDevices: "CDI_devices", NRIVersion: "NRI_version" };

/** A field's JSON tag in the Go structs: its proto name. */
export function jsonTag(field: string): string {
  return JSON_TAGS[field] ?? field.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

function isZero(value: unknown): boolean {
  return value === undefined || value === null || value === "" || value === 0 || value === 0n || value === false;
}

/** A scalar or a message: what a list or a map holds. */
function item(value: unknown): JsonValue {
  return value !== null && typeof value === "object" ? goJson(value) : (value as JsonValue);
}

/** The message `message` as encoding/json writes its Go struct. */
export function goJson(message: object): { readonly [key: string]: JsonValue } {
  const maps = MAP_FIELDS.get(shape(message));
  // A message made by hand may lack fields: an object in it is then a map unless it looks like a message.
  const isMap = (field: string, value: object) => (maps ? maps.has(field) : !MAP_FIELDS.has(shape(value)));
  const out: Record<string, JsonValue> = {};
  for (const [field, value] of Object.entries(message) as [string, unknown][]) {
    if (isZero(value)) continue;
    if (Array.isArray(value)) {
      if (value.length > 0) out[jsonTag(field)] = value.map(item);
    } else if (typeof value === "object" && value !== null && isMap(field, value)) {
      const entries = Object.entries(value as Record<string, unknown>);
      if (entries.length > 0) out[jsonTag(field)] = goMap(entries.map(([key, entry]) => [key, item(entry)] as const));
    } else {
      out[jsonTag(field)] = item(value);
    }
  }
  return out;
}

/** A handler argument: a message, a list of them, or none. */
export type MessageArgument = object | readonly object[] | undefined;

/**
 * What a Go plugin hands its YAML encoder for one of its handler's
 * arguments: a message, a list of them (a list without items is Go's nil
 * slice, `null`), or nothing (a nil pointer, `null`).
 */
export function goJsonArgument(value: MessageArgument): JsonValue {
  if (value === undefined) return null;
  if (Array.isArray(value)) return value.length === 0 ? null : value.map((entry: object) => goJson(entry));
  return goJson(value);
}

/**
 * The YAML `yaml.Marshal` of sigs.k8s.io/yaml writes for a handler
 * argument in a Go plugin.
 * @throws SigsYamlError with Go's text where Go cannot marshal it
 */
export function marshalMessageYaml(value: MessageArgument, options: EncodeOptions = {}): string {
  return encodeSigsYaml(goJsonArgument(value), options);
}
