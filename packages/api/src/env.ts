/**
 * The container's environment is a list of `NAME=value` entries (as in the
 * OCI spec); adjustments carry `{key, value}` pairs. These convert between
 * the two the way the Go reference's `FromOCIEnv` and `KeyValue.ToOCI` do:
 * an entry splits at its first `=` (the value may hold more), and an entry
 * without one is a name with an empty value.
 */
import type { KeyValue } from "./gen/nri/pkg/api/v1alpha1/api.js";

/** `"NAME=value"` as `{key: "NAME", value: "value"}`; `"NAME"` as `{key: "NAME", value: ""}`. */
export function parseEnvEntry(entry: string): KeyValue {
  const equals = entry.indexOf("=");
  return equals < 0 ? { key: entry, value: "" } : { key: entry.slice(0, equals), value: entry.slice(equals + 1) };
}

/**
 * The container's `env` list as key-value pairs, in order, duplicates kept
 * (Go's `FromOCIEnv`).
 *
 * ```ts
 * envToKeyValues(["PATH=/usr/bin", "OPTS=a=b", "EMPTY"]);
 * // [{key: "PATH", value: "/usr/bin"}, {key: "OPTS", value: "a=b"}, {key: "EMPTY", value: ""}]
 * ```
 */
export function envToKeyValues(env: readonly string[]): KeyValue[] {
  return env.map(parseEnvEntry);
}

/** A key-value pair as an `env` entry, `NAME=value` (Go's `KeyValue.ToOCI`); a removal marker stays in the name. */
export function keyValueToEnv(variable: Pick<KeyValue, "key" | "value">): string {
  return `${variable.key}=${variable.value}`;
}

/** Key-value pairs as `env` entries, in order. */
export function keyValuesToEnv(variables: readonly Pick<KeyValue, "key" | "value">[]): string[] {
  return variables.map(keyValueToEnv);
}
