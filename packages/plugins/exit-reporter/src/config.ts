/**
 * The reporter's configuration: YAML, from the file a runtime hands a
 * plugin it launched (`/etc/nri/conf.d/NN-exit-reporter.conf`) or from
 * `-config FILE`. Everything is checked before use: a configuration with
 * mistakes is refused, naming every one with its field, its line and what
 * was expected, so Configure fails clearly instead of the reporter
 * half-working. Unknown fields are mistakes too.
 */
import { MAX_YAML_NESTING, whereYamlNestsDeeperThan } from "@nri-ts/sigs-yaml/nesting";
import { LineCounter, parseDocument } from "yaml";
import { type ConfigIssue, ConfigIssues, type ConfigPath, formatConfigIssue } from "./config-issues.js";
import { describe, FieldError, flag, Reader, text, whole } from "./config-fields.js";
import { type Address, AddressError, parseAddress } from "./outputs/address.js";
import { DeclarationError, parseExitCodeTable } from "./record/annotations.js";
import { type WrapperPrefix, wrapperPrefixProblem } from "./record/command.js";
import { DEFAULT_RECENT, DEFAULT_SUBSCRIBER_BUFFER } from "./outputs/exit-hub.js";
import { KMSG } from "./oom/kernel-oom-log.js";
import { DEFAULT_MAX_NAMESPACES } from "./outputs/metrics.js";
import type { ExitRule } from "./rules/rules.js";
import {
  DEFAULT_KUBERNETES,
  KUBERNETES_FIELDS,
  type KubernetesConfig,
  readKubernetes,
} from "./outputs/kubernetes/kubernetes-config.js";
import { readRules } from "./rules/rules-config.js";

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
  /** What the operator knows about images and commands; the first that matches an end is used. */
  rules: ExitRule[];
  /** `kernelLog`: the kernel log to read OOM kills from, "" for none. */
  oom: { check: boolean; cgroupRoot: string; kernelLog: string };
  causes: { ttlSeconds: number; maxContainers: number };
  jsonLines: JsonLinesConfig | false;
  prometheus: PrometheusConfig | false;
  grpc: GrpcConfig | false;
  /** Events on the pods (and their annotations); off unless given. */
  kubernetes: KubernetesConfig | false;
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
    rules: [],
    oom: { check: true, cgroupRoot: "", kernelLog: KMSG },
    causes: { ttlSeconds: 600, maxContainers: 10_000 },
    jsonLines: { ...DEFAULT_JSON_LINES },
    prometheus: false,
    grpc: defaultGrpc(defaults),
    kubernetes: false,
  };
}

/** A configuration that cannot be used; `issues` lists every mistake, with where it is. */
export class ExitReporterConfigError extends Error {
  override readonly name = "ExitReporterConfigError";

  constructor(readonly issues: readonly ConfigIssue[]) {
    const [first] = issues;
    super(
      issues.length === 1
        ? `invalid configuration: ${formatConfigIssue(first)}`
        : `invalid configuration (${issues.length} mistakes): ${issues.map((issue) => formatConfigIssue(issue)).join("; ")}`,
    );
  }
}

function address(value: unknown, path: ConfigPath): Address {
  try {
    return parseAddress(text(value, path));
  } catch (error) {
    if (error instanceof AddressError) throw new FieldError(path, error.message);
    throw error;
  }
}

function wrappers(value: unknown, reader: Reader): WrapperPrefix[] {
  if (!Array.isArray(value))
    throw new FieldError(["commandWrappers"], `expected a list of prefixes such as "tini --", got ${describe(value)}`);
  return value.flatMap((item, i) =>
    reader.field(
      item,
      (it) => {
        const path = ["commandWrappers", i];
        const words =
          typeof it === "string"
            ? it.trim().split(/\s+/)
            : Array.isArray(it)
              ? it.map((w, j) => text(w, [...path, j]))
              : undefined;
        if (!words)
          throw new FieldError(path, `expected a text such as "tini --" or a list of words, got ${describe(it)}`);
        const problem = wrapperPrefixProblem(words);
        if (problem) throw new FieldError(path, problem);
        return [words];
      },
      [],
    ),
  );
}

/** The table's good entries; each bad one is a mistake of its own. */
function exitCodes(value: unknown, reader: Reader): Map<number, string> {
  try {
    const { meanings, mistakes } = parseExitCodeTable(value);
    for (const { key, message, atKey } of mistakes) reader.issues.add(["exitCodes", key], message, atKey);
    return meanings;
  } catch (error) {
    if (error instanceof DeclarationError) throw new FieldError(["exitCodes"], error.message);
    throw error;
  }
}

function decode(root: unknown, defaults: ConfigDefaults, reader: Reader): ExitReporterConfig {
  const config = defaultConfig(defaults);
  const grpcDefaults = defaultGrpc(defaults);
  const top = reader.mapping(
    root,
    [],
    ["commandWrappers", "exitCodes", "rules", "oom", "causes", "jsonLines", "prometheus", "grpc", "kubernetes"],
  );
  if (!top) return config;
  config.commandWrappers = reader.field(top.commandWrappers, (v) => wrappers(v, reader), config.commandWrappers);
  config.exitCodes = reader.field(top.exitCodes, (v) => exitCodes(v, reader), config.exitCodes);
  config.rules = reader.field(top.rules, (v) => readRules(v, reader), config.rules);
  const oom = reader.mapping(top.oom, ["oom"], ["check", "cgroupRoot", "kernelLog"]);
  if (oom) {
    config.oom.check = reader.field(oom.check, (v) => flag(v, ["oom", "check"]), config.oom.check);
    config.oom.kernelLog = reader.field(
      oom.kernelLog,
      (v) => (typeof v === "string" ? v : flag(v, ["oom", "kernelLog"]) ? KMSG : ""),
      config.oom.kernelLog,
    );
    config.oom.cgroupRoot = reader.field(oom.cgroupRoot, (v) => text(v, ["oom", "cgroupRoot"]), config.oom.cgroupRoot);
  }
  const causes = reader.mapping(top.causes, ["causes"], ["ttlSeconds", "maxContainers"]);
  if (causes) {
    config.causes.ttlSeconds = reader.field(
      causes.ttlSeconds,
      (v) => whole(v, ["causes", "ttlSeconds"], 1, 86_400),
      config.causes.ttlSeconds,
    );
    config.causes.maxContainers = reader.field(
      causes.maxContainers,
      (v) => whole(v, ["causes", "maxContainers"], 1),
      config.causes.maxContainers,
    );
  }
  config.jsonLines = reader.section(
    top.jsonLines,
    ["jsonLines"],
    ["path", "maxBytes", "keep"],
    (m) => ({
      path: reader.field(m.path, (v) => text(v, ["jsonLines", "path"]), DEFAULT_JSON_LINES.path),
      maxBytes: reader.field(m.maxBytes, (v) => whole(v, ["jsonLines", "maxBytes"], 1024), DEFAULT_JSON_LINES.maxBytes),
      keep: reader.field(m.keep, (v) => whole(v, ["jsonLines", "keep"], 0, 100), DEFAULT_JSON_LINES.keep),
    }),
    top.jsonLines === undefined ? config.jsonLines : { ...DEFAULT_JSON_LINES },
  );
  if (top.prometheus !== undefined) {
    config.prometheus = reader.section(
      top.prometheus,
      ["prometheus"],
      ["listen", "maxNamespaces", "reasons"],
      (m) => ({
        listen: reader.field(
          m.listen,
          (v) => {
            const parsed = address(v, ["prometheus", "listen"]);
            if (parsed.kind !== "tcp")
              throw new FieldError(
                ["prometheus", "listen"],
                `expected [host]:port (Prometheus scrapes over TCP), got ${JSON.stringify(v)}`,
              );
            return parsed;
          },
          DEFAULT_PROMETHEUS.listen,
        ),
        maxNamespaces: reader.field(
          m.maxNamespaces,
          (v) => whole(v, ["prometheus", "maxNamespaces"], 1, 10_000),
          DEFAULT_PROMETHEUS.maxNamespaces,
        ),
        reasons: reader.field(
          m.reasons,
          (v) => {
            if (!Array.isArray(v))
              throw new FieldError(["prometheus", "reasons"], `expected a list of reasons, got ${describe(v)}`);
            return v.flatMap((reason, i) => reader.field(reason, (r) => [text(r, ["prometheus", "reasons", i])], []));
          },
          [],
        ),
      }),
      { ...DEFAULT_PROMETHEUS },
    );
  }
  config.grpc = reader.section(
    top.grpc,
    ["grpc"],
    ["listen", "recent", "subscriberBuffer"],
    (m) => ({
      listen: reader.field(m.listen, (v) => address(v, ["grpc", "listen"]), grpcDefaults.listen),
      recent: reader.field(m.recent, (v) => whole(v, ["grpc", "recent"], 1, 1_000_000), grpcDefaults.recent),
      subscriberBuffer: reader.field(
        m.subscriberBuffer,
        (v) => whole(v, ["grpc", "subscriberBuffer"], 1, 1_000_000),
        grpcDefaults.subscriberBuffer,
      ),
    }),
    grpcDefaults,
  );
  if (top.kubernetes !== undefined) {
    config.kubernetes = reader.section(
      top.kubernetes,
      ["kubernetes"],
      KUBERNETES_FIELDS,
      (m) => readKubernetes(m, reader),
      structuredClone(DEFAULT_KUBERNETES),
    );
  }
  return config;
}

/**
 * The configuration in `text` (YAML); an empty document gives the defaults.
 * @throws ExitReporterConfigError listing every mistake: the field, what
 * was expected, and its line and column
 */
export function decodeConfig(text: string, defaults: ConfigDefaults = {}): ExitReporterConfig {
  const tooDeep = whereYamlNestsDeeperThan(text);
  if (tooDeep !== undefined) {
    throw new ExitReporterConfigError([
      {
        line: tooDeep.line,
        column: tooDeep.column,
        path: "",
        message: `nested deeper than ${MAX_YAML_NESTING} levels`,
      },
    ]);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new ExitReporterConfigError(
      doc.errors.map((error) => {
        const [start] = error.linePos ?? [];
        const message = error.message.split("\n")[0].replace(/ at line \d+, column \d+:$/, "");
        return { ...(start && { line: start.line, column: start.col }), path: "", message: `not YAML: ${message}` };
      }),
    );
  }
  const root: unknown = doc.toJS();
  if (root === null || root === undefined) return defaultConfig(defaults);
  const issues = new ConfigIssues();
  const config = decode(root, defaults, new Reader(issues));
  if (issues.count > 0) throw new ExitReporterConfigError(issues.located(doc.contents, lines));
  return config;
}
