/**
 * The reporter's configuration: YAML, from the file a runtime hands a
 * plugin it launched (`/etc/nri/conf.d/NN-exit-reporter.conf`) or from
 * `-config FILE`. Everything is checked before use: a mistake is refused
 * with the field and what was expected, so Configure fails clearly instead
 * of the reporter half-working. Unknown fields are mistakes too.
 */
import { MAX_YAML_NESTING, yamlMayNestDeeperThan } from "@nri-ts/api";
import { parse } from "yaml";
import { type Address, AddressError, parseAddress } from "./outputs/address.js";
import { DeclarationError, parseExitCodeTable } from "./record/annotations.js";
import { type WrapperPrefix, wrapperPrefixProblem } from "./record/command.js";
import { DEFAULT_RECENT, DEFAULT_SUBSCRIBER_BUFFER } from "./outputs/exit-hub.js";
import { KMSG } from "./oom/kernel-oom-log.js";
import { DEFAULT_MAX_NAMESPACES } from "./outputs/metrics.js";

export const DEFAULT_GRPC_SOCKET = "/var/run/nri/exit-reporter.sock";

export interface JsonLinesConfig {
  /** A file, or `-` for stdout. */
  path: string;
  /** Rotate before the file would pass this size. */
  maxBytes: number;
  /** Rotated files to keep. */
  keep: number;
}

export interface PrometheusConfig {
  listen: Extract<Address, { kind: "tcp" }>;
  maxNamespaces: number;
  reasons: string[];
}

export interface GrpcConfig {
  listen: Address;
  recent: number;
  subscriberBuffer: number;
}

export interface ExitReporterConfig {
  commandWrappers: WrapperPrefix[];
  exitCodes: Map<number, string>;
  /** `kernelLog`: the kernel log to read OOM kills from, "" for none. */
  oom: { check: boolean; cgroupRoot: string; kernelLog: string };
  causes: { ttlSeconds: number; maxContainers: number };
  jsonLines: JsonLinesConfig | false;
  prometheus: PrometheusConfig | false;
  grpc: GrpcConfig | false;
}

export const DEFAULT_JSON_LINES: JsonLinesConfig = { path: "-", maxBytes: 10 * 1024 * 1024, keep: 3 };
export const DEFAULT_PROMETHEUS: PrometheusConfig = {
  listen: { kind: "tcp", host: "", port: 9309 },
  maxNamespaces: DEFAULT_MAX_NAMESPACES,
  reasons: [],
};
/** What the defaults depend on. */
export interface ConfigDefaults {
  /** The gRPC socket when the configuration names none; default `/var/run/nri/exit-reporter.sock`. */
  grpcSocket?: string;
}

function defaultGrpc(defaults: ConfigDefaults): GrpcConfig {
  return {
    listen: { kind: "unix", path: defaults.grpcSocket ?? DEFAULT_GRPC_SOCKET },
    recent: DEFAULT_RECENT,
    subscriberBuffer: DEFAULT_SUBSCRIBER_BUFFER,
  };
}

/** JSON lines on stdout, gRPC on the default socket, no metrics. */
export function defaultConfig(defaults: ConfigDefaults = {}): ExitReporterConfig {
  return {
    commandWrappers: [],
    exitCodes: new Map(),
    oom: { check: true, cgroupRoot: "", kernelLog: KMSG },
    causes: { ttlSeconds: 600, maxContainers: 10_000 },
    jsonLines: { ...DEFAULT_JSON_LINES },
    prometheus: false,
    grpc: defaultGrpc(defaults),
  };
}

export class ExitReporterConfigError extends Error {
  override readonly name = "ExitReporterConfigError";
}

class FieldError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

type Mapping = Record<string, unknown>;

function describe(value: unknown): string {
  return value === null
    ? "null"
    : Array.isArray(value)
      ? "a list"
      : typeof value === "object"
        ? "a mapping"
        : JSON.stringify(value);
}

function mapping(value: unknown, path: string, known: readonly string[]): Mapping {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new FieldError(path, `expected a mapping, got ${describe(value)}`);
  const unknown = Object.keys(value).find((key) => !known.includes(key));
  if (unknown !== undefined)
    throw new FieldError(path ? `${path}.${unknown}` : unknown, `unknown field (known: ${known.join(", ")})`);
  return value as Mapping;
}

function text(value: unknown, path: string): string {
  if (typeof value !== "string") throw new FieldError(path, `expected a text, got ${describe(value)}`);
  return value;
}

function whole(value: unknown, path: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new FieldError(
      path,
      `expected a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ""}, got ${describe(value)}`,
    );
  }
  return value;
}

function flag(value: unknown, path: string): boolean {
  if (typeof value !== "boolean") throw new FieldError(path, `expected true or false, got ${describe(value)}`);
  return value;
}

function address(value: unknown, path: string): Address {
  try {
    return parseAddress(text(value, path));
  } catch (error) {
    if (error instanceof AddressError) throw new FieldError(path, error.message);
    throw error;
  }
}

/** An output section: false (off), true (defaults) or a mapping over the defaults. */
function section<T>(value: unknown, read: (m: Mapping) => T, defaults: T): T | false {
  if (value === false) return false;
  if (value === true || value === null) return defaults;
  return read(value as Mapping);
}

function wrappers(value: unknown): WrapperPrefix[] {
  if (!Array.isArray(value))
    throw new FieldError("commandWrappers", `expected a list of prefixes such as "tini --", got ${describe(value)}`);
  return value.map((item, i) => {
    const path = `commandWrappers[${i}]`;
    const words =
      typeof item === "string"
        ? item.trim().split(/\s+/)
        : Array.isArray(item)
          ? item.map((w, j) => text(w, `${path}[${j}]`))
          : undefined;
    if (!words)
      throw new FieldError(path, `expected a text such as "tini --" or a list of words, got ${describe(item)}`);
    const problem = wrapperPrefixProblem(words);
    if (problem) throw new FieldError(path, problem);
    return words;
  });
}

function decode(root: Mapping, defaults: ConfigDefaults): ExitReporterConfig {
  const config = defaultConfig(defaults);
  const grpcDefaults = defaultGrpc(defaults);
  const top = mapping(root, "", ["commandWrappers", "exitCodes", "oom", "causes", "jsonLines", "prometheus", "grpc"]);
  if (top.commandWrappers !== undefined) config.commandWrappers = wrappers(top.commandWrappers);
  if (top.exitCodes !== undefined) {
    try {
      config.exitCodes = parseExitCodeTable(top.exitCodes);
    } catch (error) {
      if (error instanceof DeclarationError) throw new FieldError("exitCodes", error.message);
      throw error;
    }
  }
  if (top.oom !== undefined) {
    const oom = mapping(top.oom, "oom", ["check", "cgroupRoot", "kernelLog"]);
    if (oom.check !== undefined) config.oom.check = flag(oom.check, "oom.check");
    if (oom.kernelLog !== undefined) {
      config.oom.kernelLog =
        typeof oom.kernelLog === "string" ? oom.kernelLog : flag(oom.kernelLog, "oom.kernelLog") ? KMSG : "";
    }
    if (oom.cgroupRoot !== undefined) config.oom.cgroupRoot = text(oom.cgroupRoot, "oom.cgroupRoot");
  }
  if (top.causes !== undefined) {
    const causes = mapping(top.causes, "causes", ["ttlSeconds", "maxContainers"]);
    if (causes.ttlSeconds !== undefined)
      config.causes.ttlSeconds = whole(causes.ttlSeconds, "causes.ttlSeconds", 1, 86_400);
    if (causes.maxContainers !== undefined)
      config.causes.maxContainers = whole(causes.maxContainers, "causes.maxContainers", 1);
  }
  if (top.jsonLines !== undefined) {
    config.jsonLines = section(
      top.jsonLines,
      (value) => {
        const m = mapping(value, "jsonLines", ["path", "maxBytes", "keep"]);
        return {
          path: m.path === undefined ? DEFAULT_JSON_LINES.path : text(m.path, "jsonLines.path"),
          maxBytes:
            m.maxBytes === undefined ? DEFAULT_JSON_LINES.maxBytes : whole(m.maxBytes, "jsonLines.maxBytes", 1024),
          keep: m.keep === undefined ? DEFAULT_JSON_LINES.keep : whole(m.keep, "jsonLines.keep", 0, 100),
        };
      },
      { ...DEFAULT_JSON_LINES },
    );
  }
  if (top.prometheus !== undefined) {
    config.prometheus = section(
      top.prometheus,
      (value) => {
        const m = mapping(value, "prometheus", ["listen", "maxNamespaces", "reasons"]);
        let listen = DEFAULT_PROMETHEUS.listen;
        if (m.listen !== undefined) {
          const parsed = address(m.listen, "prometheus.listen");
          if (parsed.kind !== "tcp")
            throw new FieldError(
              "prometheus.listen",
              `expected [host]:port (Prometheus scrapes over TCP), got ${JSON.stringify(m.listen)}`,
            );
          listen = parsed;
        }
        const reasons = m.reasons === undefined ? [] : m.reasons;
        if (!Array.isArray(reasons))
          throw new FieldError("prometheus.reasons", `expected a list of reasons, got ${describe(reasons)}`);
        return {
          listen,
          maxNamespaces:
            m.maxNamespaces === undefined
              ? DEFAULT_PROMETHEUS.maxNamespaces
              : whole(m.maxNamespaces, "prometheus.maxNamespaces", 1, 10_000),
          reasons: reasons.map((reason, i) => text(reason, `prometheus.reasons[${i}]`)),
        };
      },
      { ...DEFAULT_PROMETHEUS },
    );
  }
  if (top.grpc !== undefined) {
    config.grpc = section(
      top.grpc,
      (value) => {
        const m = mapping(value, "grpc", ["listen", "recent", "subscriberBuffer"]);
        return {
          listen: m.listen === undefined ? grpcDefaults.listen : address(m.listen, "grpc.listen"),
          recent: m.recent === undefined ? grpcDefaults.recent : whole(m.recent, "grpc.recent", 1, 1_000_000),
          subscriberBuffer:
            m.subscriberBuffer === undefined
              ? grpcDefaults.subscriberBuffer
              : whole(m.subscriberBuffer, "grpc.subscriberBuffer", 1, 1_000_000),
        };
      },
      grpcDefaults,
    );
  }
  return config;
}

/**
 * The configuration in `text` (YAML); an empty document gives the defaults.
 * @throws ExitReporterConfigError naming the field and what was expected
 */
export function decodeConfig(text: string, defaults: ConfigDefaults = {}): ExitReporterConfig {
  if (yamlMayNestDeeperThan(text))
    throw new ExitReporterConfigError(`invalid configuration: nested deeper than ${MAX_YAML_NESTING} levels`);
  let root: unknown;
  try {
    root = parse(text);
  } catch (error) {
    throw new ExitReporterConfigError(`invalid configuration: not YAML: ${(error as Error).message.split("\n")[0]}`);
  }
  if (root === null || root === undefined) return defaultConfig(defaults);
  try {
    return decode(root as Mapping, defaults);
  } catch (error) {
    if (!(error instanceof FieldError)) throw error;
    throw new ExitReporterConfigError(`invalid configuration: ${error.path ? `${error.path}: ` : ""}${error.message}`);
  }
}
