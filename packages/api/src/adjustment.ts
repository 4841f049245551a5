/**
 * A fluent builder for `ContainerAdjustment`, the changes a plugin asks for
 * when a container is created:
 *
 * ```ts
 * const adjust = new AdjustmentBuilder()
 *   .addMount({ destination: "/data", source: "/srv/data", type: "bind", options: ["rbind", "ro"] })
 *   .addEnv("LOG_LEVEL", "debug")
 *   .removeAnnotation("example.com/old")
 *   .build();
 * ```
 *
 * Each method records one change the way the Go reference's
 * `ContainerAdjustment` methods do, so the runtime merges it the same way.
 * Removals are sent as removal markers (see `removal.ts`). Removing an item
 * first is also how a plugin takes over an item another plugin set: without
 * the removal, touching it is a conflict and the runtime fails the request.
 */
import {
  CDIDevice,
  ContainerAdjustment,
  type DeepPartial,
  Hook,
  Hooks,
  type IOPrioClass,
  KeyValue,
  LinuxContainerAdjustment,
  LinuxDevice,
  LinuxIOPriority,
  LinuxMemoryPolicy,
  LinuxNamespace,
  LinuxRdt,
  LinuxResources,
  LinuxScheduler,
  LinuxSeccomp,
  Mount,
  type MpolFlag,
  type MpolMode,
  POSIXRlimit,
} from "./gen/nri/pkg/api/v1alpha1/api.js";
import {
  type Int64Like,
  optionalBool,
  optionalFileMode,
  optionalInt,
  optionalRepeatedString,
  optionalString,
  optionalUInt32,
  toInt64,
  toUInt64,
} from "./optional.js";
import { fromPartialChecked } from "./checked-partial.js";
import { markForRemoval } from "./removal.js";
import { LinuxResourceSetters } from "./resource-setters.js";

/** A scalar given plainly or in its generated `Optional*` wrapper. */
export type ValueOrWrapper<T> = T | { value: T };

function plain<T>(value: ValueOrWrapper<T>): T {
  return typeof value === "object" && value !== null && "value" in value ? value.value : value;
}

export interface MountInput {
  /** Path inside the container. */
  destination: string;
  source?: string;
  /** e.g. `bind`, `tmpfs`. */
  type?: string;
  options?: readonly string[];
}

export interface HookInput {
  path: string;
  args?: readonly string[];
  env?: readonly string[];
  /** Seconds. */
  timeout?: ValueOrWrapper<Int64Like>;
}

export interface HooksInput {
  prestart?: readonly HookInput[];
  createRuntime?: readonly HookInput[];
  createContainer?: readonly HookInput[];
  startContainer?: readonly HookInput[];
  poststart?: readonly HookInput[];
  poststop?: readonly HookInput[];
}

/** A device node to create in the container; a generated `LinuxDevice` fits too. */
export interface DeviceInput {
  path: string;
  /** `c` (char), `b` (block), `u` (unbuffered char) or `p` (FIFO). */
  type: string;
  major?: Int64Like;
  minor?: Int64Like;
  /** e.g. `0o666`. */
  fileMode?: ValueOrWrapper<number>;
  uid?: ValueOrWrapper<number>;
  gid?: ValueOrWrapper<number>;
}

const HOOK_KINDS = [
  "prestart",
  "createRuntime",
  "createContainer",
  "startContainer",
  "poststart",
  "poststop",
] as const satisfies readonly (keyof Hooks)[];

function toHook(hook: HookInput): Hook {
  return Hook.fromPartial({
    path: hook.path,
    args: [...(hook.args ?? [])],
    env: [...(hook.env ?? [])],
    timeout: hook.timeout === undefined ? undefined : optionalInt(plain(hook.timeout)),
  });
}

/** Like the resource setters, each method checks its input before changing anything. */
export class AdjustmentBuilder extends LinuxResourceSetters {
  readonly #adjustment = ContainerAdjustment.fromPartial({});

  #linux(): LinuxContainerAdjustment {
    return (this.#adjustment.linux ??= LinuxContainerAdjustment.fromPartial({}));
  }

  protected resources(): LinuxResources {
    const linux = this.#linux();
    return (linux.resources ??= LinuxResources.fromPartial({}));
  }

  #rdt(): LinuxRdt {
    const linux = this.#linux();
    return (linux.rdt ??= LinuxRdt.fromPartial({}));
  }

  /** The adjustment so far, as a fresh generated object (the builder can go on). */
  build(): ContainerAdjustment {
    return ContainerAdjustment.fromPartial(this.#adjustment);
  }

  addAnnotation(key: string, value: string): this {
    this.#adjustment.annotations[key] = value;
    return this;
  }

  /** Sent as key `-key` with an empty value. */
  removeAnnotation(key: string): this {
    this.#adjustment.annotations[markForRemoval(key)] = "";
    return this;
  }

  /** Adds a mount, replacing any mount of the container at the same destination. */
  addMount(mount: MountInput): this {
    this.#adjustment.mounts.push(
      Mount.fromPartial({
        destination: mount.destination,
        source: mount.source ?? "",
        type: mount.type ?? "",
        options: [...(mount.options ?? [])],
      }),
    );
    return this;
  }

  /** Sent as a mount whose destination is `-destination`. */
  removeMount(destination: string): this {
    this.#adjustment.mounts.push(Mount.fromPartial({ destination: markForRemoval(destination) }));
    return this;
  }

  /** Sets an environment variable, replacing the container's own value. */
  addEnv(name: string, value: string): this {
    this.#adjustment.env.push(KeyValue.fromPartial({ key: name, value }));
    return this;
  }

  /** Sent as an entry whose key is `-name`. */
  removeEnv(name: string): this {
    this.#adjustment.env.push(KeyValue.fromPartial({ key: markForRemoval(name) }));
    return this;
  }

  /** Replaces the container's command line. Conflicts if another plugin set it too. */
  setArgs(args: readonly string[]): this {
    this.#adjustment.args = [...args];
    return this;
  }

  /**
   * Replaces the command line even when an earlier plugin already set it: the
   * list is sent with an empty first element, which tells the runtime to
   * clear before setting.
   */
  updateArgs(args: readonly string[]): this {
    this.#adjustment.args = ["", ...args];
    return this;
  }

  /** Appends OCI hooks; hooks from several plugins accumulate. */
  addHooks(hooks: HooksInput): this {
    const added = HOOK_KINDS.map((kind) => (hooks[kind] ?? []).map(toHook));
    const target = (this.#adjustment.hooks ??= Hooks.fromPartial({}));
    for (const [i, kind] of HOOK_KINDS.entries()) target[kind].push(...added[i]!);
    return this;
  }

  /** Adds a POSIX rlimit such as `("RLIMIT_NOFILE", 1024, 1024)`. */
  addRlimit(type: string, hard: Int64Like, soft: Int64Like): this {
    const rlimit = POSIXRlimit.fromPartial({ type, hard: toUInt64(hard), soft: toUInt64(soft) });
    this.#adjustment.rlimits.push(rlimit);
    return this;
  }

  /** Adds a device node, replacing any device of the container at the same path. */
  addDevice(device: DeviceInput): this {
    const added = LinuxDevice.fromPartial({
      path: device.path,
      type: device.type,
      major: toInt64(device.major ?? 0),
      minor: toInt64(device.minor ?? 0),
      fileMode: device.fileMode === undefined ? undefined : optionalFileMode(plain(device.fileMode)),
      uid: device.uid === undefined ? undefined : optionalUInt32(plain(device.uid)),
      gid: device.gid === undefined ? undefined : optionalUInt32(plain(device.gid)),
    });
    this.#linux().devices.push(added);
    return this;
  }

  /** Sent as a device whose path is `-path`. */
  removeDevice(path: string): this {
    this.#linux().devices.push(LinuxDevice.fromPartial({ path: markForRemoval(path) }));
    return this;
  }

  /** Asks for a CDI device by its fully qualified name, e.g. `vendor.com/gpu=0`. */
  addCdiDevice(name: string): this {
    this.#adjustment.CDIDevices.push(CDIDevice.fromPartial({ name }));
    return this;
  }

  setCgroupsPath(path: string): this {
    this.#linux().cgroupsPath = path;
    return this;
  }

  /** The OOM score adjustment, -1000 to 1000. */
  setOomScoreAdj(value: Int64Like): this {
    const oomScoreAdj = optionalInt(value);
    this.#linux().oomScoreAdj = oomScoreAdj;
    return this;
  }

  setIoPriority(ioPriority: { class: IOPrioClass; priority: number }): this {
    const priority = LinuxIOPriority.fromPartial(ioPriority);
    this.#linux().ioPriority = priority;
    return this;
  }

  /** Replaces the whole seccomp policy of the container. */
  setSeccompPolicy(policy: DeepPartial<LinuxSeccomp>): this {
    const seccompPolicy = fromPartialChecked(LinuxSeccomp, policy, "setSeccompPolicy");
    this.#linux().seccompPolicy = seccompPolicy;
    return this;
  }

  /** Adds a namespace, or replaces the container's namespace of the same type. */
  addOrReplaceNamespace(namespace: { type: string; path?: string }): this {
    this.#linux().namespaces.push(LinuxNamespace.fromPartial(namespace));
    return this;
  }

  /** Sent as a namespace whose type is `-type`, e.g. `-network`. */
  removeNamespace(type: string): this {
    this.#linux().namespaces.push(LinuxNamespace.fromPartial({ type: markForRemoval(type) }));
    return this;
  }

  setSysctl(key: string, value: string): this {
    this.#linux().sysctl[key] = value;
    return this;
  }

  /** Sent as key `-key` with an empty value. */
  removeSysctl(key: string): this {
    this.#linux().sysctl[markForRemoval(key)] = "";
    return this;
  }

  /** Moves host network interface `hostInterface` into the container as `device.name`. */
  addNetDevice(hostInterface: string, device: { name: string }): this {
    this.#linux().netDevices[hostInterface] = { name: device.name };
    return this;
  }

  /**
   * Sent as key `-hostInterface`. Go sends a nil device there, which its
   * encoder writes as an empty message; an empty device gives the same bytes,
   * and unlike an absent value it survives ts-proto's decoder.
   */
  removeNetDevice(hostInterface: string): this {
    this.#linux().netDevices[markForRemoval(hostInterface)] = { name: "" };
    return this;
  }

  /** Replaces the scheduling attributes (policy, nice, priority, flags, deadline). */
  setScheduler(scheduler: DeepPartial<LinuxScheduler>): this {
    const sched = fromPartialChecked(LinuxScheduler, scheduler, "setScheduler");
    this.#linux().scheduler = sched;
    return this;
  }

  setRdtClosId(closId: string): this {
    this.#rdt().closId = optionalString(closId);
    return this;
  }

  /** Schemata lines, e.g. `["L3:0=ff"]`. */
  setRdtSchemata(schemata: readonly string[]): this {
    this.#rdt().schemata = optionalRepeatedString(schemata);
    return this;
  }

  setRdtEnableMonitoring(enable = true): this {
    this.#rdt().enableMonitoring = optionalBool(enable);
    return this;
  }

  /** Clears the container's RDT settings before any set here apply. */
  removeRdt(): this {
    this.#rdt().remove = true;
    return this;
  }

  /** NUMA memory policy, e.g. `(MpolMode.MPOL_INTERLEAVE, "0,1", MpolFlag.MPOL_F_STATIC_NODES)`. */
  setMemoryPolicy(mode: MpolMode, nodes: string, ...flags: MpolFlag[]): this {
    this.#linux().memoryPolicy = LinuxMemoryPolicy.fromPartial({ mode, nodes, flags });
    return this;
  }
}
