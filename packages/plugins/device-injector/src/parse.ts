/**
 * The annotations' values, decoded into the Go plugin's types as it decodes
 * them (sigs.k8s.io/yaml semantics, through @nri-ts/sigs-yaml), with its
 * error texts: `invalid device annotation "<value>": <decoder's error>`.
 */
import { goQuote } from "@nri-ts/common";
import { decodeSigsYaml, go, type GoType, type GoValueOf, SigsYamlError } from "@nri-ts/sigs-yaml";
import { type AnnotationKind, annotationValue, KINDS } from "./annotations.js";

/** An annotation's value could not be read; the message is the Go plugin's. */
export class DeviceInjectorError extends Error {
  override readonly name = "DeviceInjectorError";
}

const DEVICE = go.struct("main.device", {
  path: go.string,
  type: go.string,
  major: go.int64,
  minor: go.int64,
  file_mode: go.uint32,
  uid: go.uint32,
  gid: go.uint32,
});
const MOUNT = go.struct("main.mount", {
  source: go.string,
  destination: go.string,
  type: go.string,
  options: go.slice(go.string),
});
const IO_PRIORITY = go.struct("main.ioPrio", { class: go.string, priority: go.int32 });
const NET_DEVICE = go.pointer(go.struct("main.netDevice", { hostIf: go.string, name: go.string }));
const SCHEDULER = go.struct("main.scheduler", {
  policy: go.string,
  nice: go.int32,
  priority: go.int32,
  flags: go.slice(go.string),
  runtime: go.uint64,
  deadline: go.uint64,
  period: go.uint64,
});
const MEMORY_POLICY = go.struct("main.memoryPolicy", { mode: go.string, nodes: go.string, flags: go.slice(go.string) });

export type Device = GoValueOf<typeof DEVICE>;
export type Mount = GoValueOf<typeof MOUNT>;
export type IoPriority = GoValueOf<typeof IO_PRIORITY>;
export type NetDevice = Exclude<GoValueOf<typeof NET_DEVICE>, null>;
export type Scheduler = GoValueOf<typeof SCHEDULER>;
export type MemoryPolicy = GoValueOf<typeof MEMORY_POLICY>;

function decode<T extends GoType>(kind: AnnotationKind, value: string, type: T): GoValueOf<T> {
  try {
    return decodeSigsYaml(value, type);
  } catch (error) {
    if (!(error instanceof SigsYamlError)) throw error;
    throw new DeviceInjectorError(`invalid ${kind.what} annotation ${goQuote(value)}: ${error.message}`, {
      cause: error,
    });
  }
}

/** A pod's annotations. */
export type Annotations = Readonly<Record<string, string>>;

/** A list kind: nothing when absent or empty. */
function list<T extends GoType>(
  kind: AnnotationKind,
  type: T,
  container: string,
  annotations: Annotations,
): GoValueOf<T> | [] {
  const value = annotationValue(kind, container, annotations);
  return value === undefined || value === "" ? [] : decode(kind, value, type);
}

/** A struct kind: undefined when absent; present but empty, its zero value. */
function struct<T extends GoType>(
  kind: AnnotationKind,
  type: T,
  container: string,
  annotations: Annotations,
): GoValueOf<T> | undefined {
  const value = annotationValue(kind, container, annotations);
  return value === undefined ? undefined : decode(kind, value, type);
}

export function parseDevices(container: string, annotations: Annotations): Device[] {
  return list(KINDS.devices, go.slice(DEVICE), container, annotations);
}

export function parseCdiDevices(container: string, annotations: Annotations): string[] {
  return list(KINDS.cdiDevices, go.slice(go.string), container, annotations);
}

export function parseMounts(container: string, annotations: Annotations): Mount[] {
  return list(KINDS.mounts, go.slice(MOUNT), container, annotations);
}

export function parseIoPriority(container: string, annotations: Annotations): IoPriority | undefined {
  return struct(KINDS.ioPriority, IO_PRIORITY, container, annotations);
}

export function parseScheduler(container: string, annotations: Annotations): Scheduler | undefined {
  return struct(KINDS.scheduler, SCHEDULER, container, annotations);
}

/**
 * The network devices. A null entry (`- ~`) is refused: the Go plugin
 * crashes on it (a nil pointer), ours fails the container instead.
 */
export function parseNetDevices(container: string, annotations: Annotations): NetDevice[] {
  const value = annotationValue(KINDS.netDevices, container, annotations);
  if (value === undefined) return [];
  const devices = decode(KINDS.netDevices, value, go.slice(NET_DEVICE));
  const empty = devices.indexOf(null);
  if (empty >= 0)
    throw new DeviceInjectorError(`invalid net device annotation ${goQuote(value)}: entry ${empty + 1} is null`);
  return devices as NetDevice[];
}

/** The sysctls, by name; values given as numbers or booleans become text. */
export function parseSysctl(container: string, annotations: Annotations): Map<string, string> {
  const value = annotationValue(KINDS.sysctl, container, annotations);
  return value === undefined ? new Map() : decode(KINDS.sysctl, value, go.map(go.string));
}

export function parseMemoryPolicy(container: string, annotations: Annotations): MemoryPolicy | undefined {
  return struct(KINDS.memoryPolicy, MEMORY_POLICY, container, annotations);
}
