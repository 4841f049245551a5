/**
 * The logger's settings: from its command-line flags, then from the
 * configuration the runtime hands a plugin it launched (the YAML of
 * `/etc/nri/conf.d/NN-logger.conf`), decoded on top of the flags as the Go
 * logger decodes it: keys match whatever their case, unknown keys are
 * ignored, numbers and booleans given for text become text.
 */
import { MAX_YAML_NESTING, yamlMayNestDeeperThan } from "@nri-ts/api";
import { isMap, isScalar, isSeq, parseDocument, type Node } from "yaml";

export interface LoggerConfig {
  /** Append the log to this file instead of writing to stderr. */
  logFile: string;
  /** Events to subscribe to; each entry may itself be a comma-separated list. Empty means all. */
  events: string[];
  /** Add this annotation (value `logger-pid-<pid>`) to every container created. */
  addAnnotation: string;
  /** Remove, then add, this annotation: takes it over from other plugins. */
  setAnnotation: string;
  /** Add this environment variable to every container created. */
  addEnv: string;
  /** Remove, then add, this environment variable. */
  setEnv: string;
}

export function defaultConfig(): LoggerConfig {
  return { logFile: "", events: [], addAnnotation: "", setAnnotation: "", addEnv: "", setEnv: "" };
}

/** The configuration could not be decoded. */
export class LoggerConfigError extends Error {
  override readonly name = "LoggerConfigError";
}

type TextKey = Exclude<keyof LoggerConfig, "events">;
const TEXT_KEYS: readonly TextKey[] = ["logFile", "addAnnotation", "setAnnotation", "addEnv", "setEnv"];

function scalarText(node: Node | null, key: string): string | undefined {
  if (node === null || (isScalar(node) && node.value === null)) return undefined;
  if (isScalar(node) && ["string", "number", "boolean", "bigint"].includes(typeof node.value)) return String(node.value);
  throw new LoggerConfigError(`failed to parse provided configuration: ${key}: expected a string`);
}

/** `config` (YAML) decoded over `base`. */
export function decodeConfig(config: string, base: LoggerConfig): LoggerConfig {
  if (yamlMayNestDeeperThan(config)) {
    throw new LoggerConfigError(`failed to parse provided configuration: exceeded max depth of ${MAX_YAML_NESTING}`);
  }
  const doc = parseDocument(config, { version: "1.1" });
  if (doc.errors.length > 0) {
    throw new LoggerConfigError(`failed to parse provided configuration: ${doc.errors[0].message.split("\n")[0]}`);
  }
  const root = doc.contents as Node | null;
  if (root === null || (isScalar(root) && root.value === null)) return { ...base, events: [...base.events] };
  if (!isMap(root)) throw new LoggerConfigError("failed to parse provided configuration: expected a mapping");
  const next: LoggerConfig = { ...base, events: [...base.events] };
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : "";
    const value = pair.value as Node | null;
    const lower = key.toLowerCase();
    if (lower === "events") {
      if (value === null || (isScalar(value) && value.value === null)) continue;
      if (!isSeq(value)) throw new LoggerConfigError("failed to parse provided configuration: events: expected a list");
      next.events = value.items.map((item) => scalarText(item as Node | null, "events") ?? "");
      continue;
    }
    const field = TEXT_KEYS.find((k) => k.toLowerCase() === lower);
    if (!field) continue;
    const text = scalarText(value, key);
    if (text !== undefined) next[field] = text;
  }
  return next;
}
