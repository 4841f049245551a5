/**
 * Protocol messages as plain JSON-able data for reports and `expect:`
 * blocks: `Optional*` wrappers unwrapped (a wrapped 0 stays, since it means
 * "set to 0"), 64-bit integers as numbers (as decimal strings beyond 2^53),
 * and empty strings, zeros, false, empty lists and empty maps left out, as
 * protobuf's JSON leaves them out. Map entries stay whatever their value:
 * `"-key": ""` is a removal marker.
 */

/** A value of a report: what JSON can hold. */
export type Plain = string | number | boolean | null | Plain[] | { [key: string]: Plain };

function isWrapper(value: object): value is { value: unknown } {
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === "value";
}

function scalar(value: bigint | number): number | string {
  if (typeof value === "number") return value;
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : String(value);
}

/** The protocol's map fields (string keys); their entries are data, not fields with defaults. */
const MAP_FIELDS: ReadonlySet<string> = new Set(["annotations", "labels", "sysctl", "unified", "netDevices"]);

function mapEntries(map: object): { [key: string]: Plain } | undefined {
  const out: Record<string, Plain> = {};
  for (const [key, item] of Object.entries(map)) out[key] = plain(item) ?? (typeof item === "string" ? "" : null);
  return Object.keys(out).length === 0 ? undefined : out;
}

/** A list's item that is a default is still an item: `""`, `0`, `false`, `{}`. */
function emptyItem(item: unknown): Plain {
  if (typeof item === "string") return "";
  if (typeof item === "number" || typeof item === "bigint") return 0;
  if (typeof item === "boolean") return false;
  return item === null || item === undefined ? null : {};
}

/** The value with defaults dropped; undefined when nothing is left. */
export function plain(value: unknown): Plain | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "bigint") return value === 0n ? undefined : scalar(value);
  if (typeof value === "number") return value === 0 ? undefined : value;
  if (typeof value === "string") return value === "" ? undefined : value;
  if (typeof value === "boolean") return value ? true : undefined;
  if (Array.isArray(value)) {
    const items = value.map((item) => plain(item) ?? emptyItem(item));
    return items.length === 0 ? undefined : items;
  }
  if (typeof value === "object") {
    if (isWrapper(value)) return wrapped(value.value);
    const out: Record<string, Plain> = {};
    for (const [key, item] of Object.entries(value)) {
      const converted =
        MAP_FIELDS.has(key) && item !== null && typeof item === "object" ? mapEntries(item) : plain(item);
      if (converted !== undefined) out[key] = converted;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return undefined;
}

/** The value of an `Optional*` wrapper: present, so kept even when it is 0, "" or false. */
function wrapped(value: unknown): Plain {
  if (typeof value === "bigint" || typeof value === "number") return scalar(value);
  if (typeof value === "string" || typeof value === "boolean") return value;
  return plain(value) ?? [];
}

/** `plain`, but an empty result is an empty object rather than undefined. */
export function plainObject(value: unknown): { [key: string]: Plain } {
  const converted = plain(value);
  return converted !== undefined && typeof converted === "object" && !Array.isArray(converted) && converted !== null
    ? converted
    : {};
}
