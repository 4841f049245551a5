/**
 * The scenario's `runtime:`, `pods:` and `containers:` entries.
 */
import type { Mount, POSIXRlimit } from "@nri-ts/api";
import { simulatedId, simulatedUid } from "./ids.js";
import { parseDuration } from "./quantity.js";
import { readInt64, readResources } from "./read-resources.js";
import type { ContainerSpec, PodSpec, RuntimeSpec } from "./scenario.js";
import type { YamlValue } from "./yaml-value.js";

export const DEFAULT_RUNTIME: RuntimeSpec = { name: "nri-sim", version: "0.1.0" };

const POD_FIELDS = [
  "name",
  "namespace",
  "uid",
  "id",
  "labels",
  "annotations",
  "runtimeHandler",
  "cgroupParent",
  "ips",
  "hostNetwork",
  "resources",
  "overhead",
] as const;
const CONTAINER_FIELDS = [
  "name",
  "pod",
  "id",
  "image",
  "args",
  "env",
  "mounts",
  "labels",
  "annotations",
  "resources",
  "rlimits",
] as const;
export function readDuration(value: YamlValue): number | undefined {
  const text = value.string("a duration such as 500ms, 2s or 1m");
  if (text === undefined) return undefined;
  const ms = parseDuration(text);
  return ms === undefined ? value.expected("a duration such as 500ms, 2s or 1m") : ms;
}

export function readRuntime(value: YamlValue): RuntimeSpec {
  const f = value.fields(["name", "version", "registrationTimeout", "requestTimeout"]);
  if (!f) return DEFAULT_RUNTIME;
  const registrationTimeoutMs = f.registrationTimeout.optional(readDuration);
  const requestTimeoutMs = f.requestTimeout.optional(readDuration);
  return {
    name: f.name.optional((v) => v.string()) ?? DEFAULT_RUNTIME.name,
    version: f.version.optional((v) => v.string()) ?? DEFAULT_RUNTIME.version,
    ...(registrationTimeoutMs !== undefined && { registrationTimeoutMs }),
    ...(requestTimeoutMs !== undefined && { requestTimeoutMs }),
  };
}

export function readPod(value: YamlValue): PodSpec | undefined {
  const f = value.fields(POD_FIELDS);
  if (!f) return undefined;
  const name = f.name.name("a pod name");
  if (name === undefined) return undefined;
  return {
    name,
    namespace: f.namespace.optional((v) => v.string()) ?? "default",
    uid: f.uid.optional((v) => v.string()) ?? simulatedUid(name),
    id: f.id.optional((v) => v.string()) ?? simulatedId("pod", name),
    labels: f.labels.optional((v) => v.stringMap()) ?? {},
    annotations: f.annotations.optional((v) => v.stringMap()) ?? {},
    runtimeHandler: f.runtimeHandler.optional((v) => v.string()) ?? "",
    cgroupParent: f.cgroupParent.optional((v) => v.string()) ?? "",
    ips: f.ips.optional((v) => v.stringList()),
    hostNetwork: f.hostNetwork.optional((v) => v.boolean()) ?? false,
    resources: f.resources.optional(readResources),
    overhead: f.overhead.optional(readResources),
  };
}

/** `env:` as a mapping (`{A: "1"}`) or as a list of `KEY=value` strings. */
function readEnv(value: YamlValue): string[] | undefined {
  if (value.kind === "mapping") {
    const entries = value.stringMap();
    return entries && Object.entries(entries).map(([key, text]) => `${key}=${text}`);
  }
  return value.stringList();
}

function readMount(value: YamlValue): Mount | undefined {
  const f = value.fields(["destination", "source", "type", "options"]);
  if (!f) return undefined;
  const destination = f.destination.string("a path inside the container");
  if (destination === undefined) return undefined;
  return {
    destination,
    source: f.source.optional((v) => v.string()) ?? "",
    type: f.type.optional((v) => v.string()) ?? "",
    options: f.options.optional((v) => v.stringList()) ?? [],
  };
}

function readRlimit(value: YamlValue): POSIXRlimit | undefined {
  const f = value.fields(["type", "hard", "soft"]);
  if (!f) return undefined;
  const type = f.type.string("a limit type such as RLIMIT_NOFILE");
  const hard = readInt64(f.hard, true);
  const soft = readInt64(f.soft, true);
  if (type === undefined || hard === undefined || soft === undefined) return undefined;
  return { type, hard, soft };
}

export function readContainer(value: YamlValue, pods: ReadonlySet<string>): ContainerSpec | undefined {
  const f = value.fields(CONTAINER_FIELDS);
  if (!f) return undefined;
  const name = f.name.name("a container name");
  const pod = f.pod.name("the name of a pod declared under pods:");
  if (pod !== undefined && !pods.has(pod)) {
    f.pod.error(`no pod "${pod}" is declared; declared pods: ${[...pods].join(", ") || "none"}`);
  }
  if (name === undefined || pod === undefined) return undefined;
  return {
    name,
    pod,
    id: f.id.optional((v) => v.string()) ?? simulatedId("container", `${pod}/${name}`),
    image: f.image.optional((v) => v.string()) ?? "",
    args: f.args.optional((v) => v.stringList()) ?? [],
    env: f.env.optional(readEnv) ?? [],
    mounts: (f.mounts.optional((v) => v.list()) ?? []).map(readMount).filter((m): m is Mount => m !== undefined),
    labels: f.labels.optional((v) => v.stringMap()) ?? {},
    annotations: f.annotations.optional((v) => v.stringMap()) ?? {},
    resources: f.resources.optional(readResources),
    rlimits: (f.rlimits.optional((v) => v.list()) ?? [])
      .map(readRlimit)
      .filter((r): r is POSIXRlimit => r !== undefined),
  };
}
