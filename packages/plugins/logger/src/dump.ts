/**
 * Dumps protocol objects as YAML, one log line per YAML line, under a
 * `<prefix>: <tag>:` header, as the Go logger does. Field names are the
 * protocol's (`pod_sandbox_id`, `exit_code`), empty fields are left out,
 * 64-bit numbers are written exactly and enums as numbers, as Go writes them.
 */
import { stringify } from "yaml";
import type { TextLog } from "./text-log.js";

/** Field names as the Go structs' JSON tags spell them, where camelCase does not turn back into them. */
const PROTO_NAMES: Readonly<Record<string, string>> = { CDIDevices: "CDI_devices", NRIVersion: "NRI_version" };

function protoName(key: string): string {
  return PROTO_NAMES[key] ?? key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === "" || value === 0 || value === 0n || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && Object.keys(value).length === 0;
}

/**
 * The object as Go's YAML marshalling of a protocol struct shows it.
 * Optional wrappers keep their `value`, even 0, as in Go.
 */
export function goShape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(goShape);
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value);
  const wrapper = entries.length === 1 && entries[0][0] === "value";
  const out: Record<string, unknown> = {};
  for (const [key, item] of entries) {
    const shaped = goShape(item);
    if (!wrapper && isEmpty(shaped)) continue;
    out[wrapper ? key : protoName(key)] = shaped;
  }
  return out;
}

/** Logs `objects` (pairs of tag and object) under `prefix`; nothing without objects. */
export function dump(log: TextLog, prefix: string, ...objects: [string, unknown][]): void {
  for (const [tag, object] of objects) {
    const text = object === undefined ? "null" : stringify(goShape(object), { lineWidth: 0 }).trim();
    log.info(`${prefix}: ${tag}:`);
    for (const line of text.split("\n")) log.info(`${prefix}:    ${line}`);
  }
}
