/**
 * A merged adjustment as a list of changes, each with the plugin that owns
 * it: what the report prints and `expect: owners:` checks. Ownership comes
 * from the adaptation's record of who set (or removed) what in the request.
 */
import type {
  ContainerAdjustment,
  FieldOwners,
  Hook,
  LinuxContainerAdjustment,
  LinuxResources,
  OwningPlugins,
} from "@nri-ts/api";
import { clearRemovalMarker, Field, fieldToJSON, isMarkedForRemoval } from "@nri-ts/api";
import { formatBytes } from "../scenario/quantity.js";

export interface Change {
  /** The ownership field, e.g. `Annotations`, `MemLimit`; absent for changes nobody owns (cgroup device rules). */
  field?: string;
  /** The entry of a compound field: annotation name, mount destination, env name, ... */
  key?: string;
  /** Whether this change removes the entry. */
  remove: boolean;
  /** A short human description, e.g. `env LOG_LEVEL=debug`. */
  text: string;
  /** The owning plugin (`10-logger`); `-10-logger` when that plugin removed it. */
  owner?: string;
}

/** The key `expect: owners:` uses for a change: `Annotations example.com/x`, `MemLimit`. */
export function ownerKey(change: Pick<Change, "field" | "key">): string {
  return change.key === undefined ? (change.field ?? "") : `${change.field} ${change.key}`;
}

type OwnerOf = (field: Field, key?: string) => string | undefined;

function ownerLookup(owners: FieldOwners | undefined): OwnerOf {
  return (field, key) => (key === undefined ? owners?.simple[field] : owners?.compound[field]?.owners[key]);
}

class ChangeList {
  readonly changes: Change[] = [];

  constructor(private readonly ownerOf: OwnerOf) {}

  add(field: Field | undefined, key: string | undefined, text: string, remove = false): void {
    const owner = field === undefined ? undefined : this.ownerOf(field, key);
    this.changes.push({
      ...(field !== undefined && { field: fieldToJSON(field) }),
      ...(key !== undefined && { key }),
      remove,
      text,
      ...(owner !== undefined && { owner }),
    });
  }

  /** A map field: removals first, as the runtime applies them. */
  map(field: Field, label: string, map: Record<string, unknown>, show: (value: unknown) => string): void {
    const keys = Object.keys(map).sort();
    for (const key of keys.filter(isMarkedForRemoval))
      this.add(field, clearRemovalMarker(key), `${label} ${key} (remove)`, true);
    for (const key of keys.filter((k) => !isMarkedForRemoval(k)))
      this.add(field, key, `${label} ${key}=${show(map[key])}`);
  }
}

const bytes = (value: bigint) => formatBytes(value);
const number = (value: bigint | number) => String(value);

const MEMORY: readonly [keyof NonNullable<LinuxResources["memory"]>, Field, (v: never) => string][] = [
  ["limit", Field.MemLimit, bytes],
  ["reservation", Field.MemReservation, bytes],
  ["swap", Field.MemSwapLimit, bytes],
  ["kernel", Field.MemKernelLimit, bytes],
  ["kernelTcp", Field.MemTCPLimit, bytes],
  ["swappiness", Field.MemSwappiness, number],
  ["disableOomKiller", Field.MemDisableOomKiller, String],
  ["useHierarchy", Field.MemUseHierarchy, String],
];

const CPU: readonly ["shares" | "quota" | "period" | "realtimeRuntime" | "realtimePeriod", Field][] = [
  ["shares", Field.CPUShares],
  ["quota", Field.CPUQuota],
  ["period", Field.CPUPeriod],
  ["realtimeRuntime", Field.CPURealtimeRuntime],
  ["realtimePeriod", Field.CPURealtimePeriod],
];

function resourceChanges(list: ChangeList, resources: LinuxResources): void {
  for (const [name, field, show] of MEMORY) {
    const value = resources.memory?.[name];
    if (value) list.add(field, undefined, `memory.${name} ${(show as (v: unknown) => string)(value.value)}`);
  }
  for (const [name, field] of CPU) {
    const value = resources.cpu?.[name];
    if (value) list.add(field, undefined, `cpu.${name} ${value.value}`);
  }
  if (resources.cpu?.cpus) list.add(Field.CPUSetCPUs, undefined, `cpu.cpus ${resources.cpu.cpus}`);
  if (resources.cpu?.mems) list.add(Field.CPUSetMems, undefined, `cpu.mems ${resources.cpu.mems}`);
  for (const limit of resources.hugepageLimits) {
    list.add(Field.HugepageLimits, limit.pageSize, `hugepages ${limit.pageSize} ${formatBytes(limit.limit)}`);
  }
  list.map(Field.CgroupsUnified, "unified", resources.unified, String);
  if (resources.blockioClass) list.add(Field.BlockioClass, undefined, `blockioClass ${resources.blockioClass.value}`);
  if (resources.rdtClass) list.add(Field.RdtClass, undefined, `rdtClass ${resources.rdtClass.value}`);
  if (resources.pids) list.add(Field.PidsLimit, undefined, `pids.limit ${resources.pids.limit}`);
  for (const rule of resources.devices) {
    const id = `${rule.major?.value ?? "*"}:${rule.minor?.value ?? "*"}`;
    list.add(
      undefined,
      undefined,
      `device rule ${rule.allow ? "allow" : "deny"} ${rule.type || "a"} ${id} ${rule.access}`,
    );
  }
}

function hookText(list: string, hook: Hook): string {
  return `hook ${list} ${[hook.path, ...hook.args.slice(1)].join(" ")}`;
}

function linuxChanges(list: ChangeList, linux: LinuxContainerAdjustment): void {
  for (const device of linux.devices) {
    const path = clearRemovalMarker(device.path);
    const remove = isMarkedForRemoval(device.path);
    list.add(
      Field.Devices,
      path,
      remove ? `device ${device.path} (remove)` : `device ${path} (${device.type} ${device.major}:${device.minor})`,
      remove,
    );
  }
  if (linux.resources) resourceChanges(list, linux.resources);
  if (linux.cgroupsPath) list.add(Field.CgroupsPath, undefined, `cgroupsPath ${linux.cgroupsPath}`);
  if (linux.oomScoreAdj) list.add(Field.OomScoreAdj, undefined, `oomScoreAdj ${linux.oomScoreAdj.value}`);
  if (linux.ioPriority)
    list.add(
      Field.IoPriority,
      undefined,
      `ioPriority class ${linux.ioPriority.class} priority ${linux.ioPriority.priority}`,
    );
  if (linux.seccompPolicy)
    list.add(Field.SeccompPolicy, undefined, `seccompPolicy default ${linux.seccompPolicy.defaultAction}`);
  for (const namespace of linux.namespaces) {
    const type = clearRemovalMarker(namespace.type);
    const remove = isMarkedForRemoval(namespace.type);
    list.add(
      Field.Namespace,
      type,
      remove ? `namespace ${namespace.type} (remove)` : `namespace ${type} ${namespace.path}`,
      remove,
    );
  }
  list.map(Field.Sysctl, "sysctl", linux.sysctl, String);
  list.map(
    Field.LinuxNetDevices,
    "netDevice",
    linux.netDevices,
    (d) => (d as { name?: string } | undefined)?.name ?? "",
  );
  if (linux.scheduler)
    list.add(
      Field.LinuxSched,
      undefined,
      `scheduler policy ${linux.scheduler.policy} priority ${linux.scheduler.priority}`,
    );
  const rdt = linux.rdt;
  if (rdt?.remove) list.add(Field.RdtClosID, undefined, "rdt (remove)", true);
  if (rdt?.closId) list.add(Field.RdtClosID, undefined, `rdt.closId ${rdt.closId.value}`);
  if (rdt?.schemata) list.add(Field.RdtSchemata, undefined, `rdt.schemata ${rdt.schemata.value.join(",")}`);
  if (rdt?.enableMonitoring)
    list.add(Field.RdtEnableMonitoring, undefined, `rdt.enableMonitoring ${rdt.enableMonitoring.value}`);
  if (linux.memoryPolicy)
    list.add(
      Field.MemoryPolicy,
      undefined,
      `memoryPolicy mode ${linux.memoryPolicy.mode} nodes ${linux.memoryPolicy.nodes}`,
    );
}

/**
 * The changes a merged adjustment makes to container `containerId`, in the
 * order the runtime applies them, each with its owner from `owners`.
 */
export function adjustmentChanges(
  adjust: ContainerAdjustment | undefined,
  containerId: string,
  owners?: OwningPlugins,
): Change[] {
  const list = new ChangeList(ownerLookup(owners?.owners[containerId]));
  if (!adjust) return list.changes;
  list.map(Field.Annotations, "annotation", adjust.annotations, String);
  for (const env of adjust.env) {
    const remove = isMarkedForRemoval(env.key);
    list.add(
      Field.Env,
      clearRemovalMarker(env.key),
      remove ? `env ${env.key} (remove)` : `env ${env.key}=${env.value}`,
      remove,
    );
  }
  if (adjust.args.length > 0) list.add(Field.Args, undefined, `args ${JSON.stringify(adjust.args)}`);
  if (adjust.hooks) {
    for (const [name, hooks] of Object.entries(adjust.hooks) as [string, Hook[]][]) {
      for (const hook of hooks) list.add(Field.OciHooks, undefined, hookText(name, hook));
    }
  }
  for (const cdi of adjust.CDIDevices) list.add(Field.CdiDevices, cdi.name, `CDI device ${cdi.name}`);
  if (adjust.linux) linuxChanges(list, adjust.linux);
  for (const mount of adjust.mounts) {
    const destination = clearRemovalMarker(mount.destination);
    const remove = isMarkedForRemoval(mount.destination);
    const options = mount.options.length ? ` (${mount.options.join(",")})` : "";
    list.add(
      Field.Mounts,
      destination,
      remove ? `mount ${mount.destination} (remove)` : `mount ${destination} ← ${mount.source || mount.type}${options}`,
      remove,
    );
  }
  for (const rlimit of adjust.rlimits)
    list.add(Field.Rlimits, rlimit.type, `rlimit ${rlimit.type} soft ${rlimit.soft} hard ${rlimit.hard}`);
  return list.changes;
}

/** The changes of one container update's resources. */
export function resourceUpdateChanges(
  resources: LinuxResources | undefined,
  containerId: string,
  owners?: OwningPlugins,
): Change[] {
  const list = new ChangeList(ownerLookup(owners?.owners[containerId]));
  if (resources) resourceChanges(list, resources);
  return list.changes;
}
