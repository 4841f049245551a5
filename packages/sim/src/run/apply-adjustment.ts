/**
 * Applies a merged ContainerAdjustment to the simulated container the way a
 * runtime applies it to the OCI spec (containerd and CRI-O both use the Go
 * module's `pkg/runtime-tools/generate`): same order, same replace-by-key
 * rules, the same fields left out. Where the Go code iterates a map and so
 * could remove after setting, removals go first.
 */
import type {
  Container,
  ContainerAdjustment,
  Hooks,
  LinuxContainer,
  LinuxContainerAdjustment,
  LinuxDevice,
  LinuxResources,
  Mount,
} from "@nri-ts/api";
import {
  clearRemovalMarker,
  isMarkedForRemoval,
  keyValueToEnv,
  LinuxSchedulerPolicy,
  parseEnvEntry,
} from "@nri-ts/api";
import { applyResources } from "./apply-resources.js";
import { filledLinux } from "./container-parts.js";

/** Sets in place, removals (`-key`) first. */
function applyMap<V>(target: Record<string, V>, changes: Record<string, V | undefined>): void {
  for (const key of Object.keys(changes)) {
    if (isMarkedForRemoval(key)) delete target[clearRemovalMarker(key)];
  }
  for (const [key, value] of Object.entries(changes)) {
    if (!isMarkedForRemoval(key) && value !== undefined) target[key] = value;
  }
}

/**
 * Env is an ordered map: changed variables keep their place, removed ones
 * go, new ones are appended. As in the Go generator, once any change
 * applies, entries without `=` are dropped.
 */
function applyEnv(container: Container, changes: ContainerAdjustment["env"]): void {
  if (changes.length === 0) return;
  const wanted = new Map<string, { value: string; remove: boolean }>();
  for (const change of changes) {
    wanted.set(clearRemovalMarker(change.key), { value: change.value, remove: isMarkedForRemoval(change.key) });
  }
  const env: string[] = [];
  for (const entry of container.env) {
    if (!entry.includes("=")) continue;
    const { key } = parseEnvEntry(entry);
    const change = wanted.get(key);
    if (!change) {
      env.push(entry);
      continue;
    }
    wanted.delete(key);
    if (!change.remove) env.push(keyValueToEnv({ key, value: change.value }));
  }
  for (const [key, change] of wanted) {
    if (!change.remove) env.push(keyValueToEnv({ key, value: change.value }));
  }
  container.env = env;
}

const HOOK_LISTS = ["prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"] as const;

function applyHooks(container: Container, hooks: Hooks | undefined): void {
  if (!hooks) return;
  const target = (container.hooks ??= {
    prestart: [],
    createRuntime: [],
    createContainer: [],
    startContainer: [],
    poststart: [],
    poststop: [],
  });
  for (const list of HOOK_LISTS) target[list].push(...hooks[list]);
}

/** Replaces a device by path; an added device also gets a cgroup allow rule. */
function applyDevices(linux: LinuxContainer & { resources: LinuxResources }, devices: LinuxDevice[]): void {
  for (const device of devices) {
    const path = clearRemovalMarker(device.path);
    linux.devices = linux.devices.filter((d) => d.path !== path);
    if (isMarkedForRemoval(device.path)) continue;
    linux.devices.push(device);
    linux.resources.devices.push({
      allow: true,
      type: device.type,
      major: { value: device.major },
      minor: { value: device.minor },
      access: device.type === "b" ? "rwm" : "rw",
    });
  }
}

function applyNamespaces(linux: LinuxContainer, adjust: LinuxContainerAdjustment): void {
  for (const namespace of adjust.namespaces) {
    const type = clearRemovalMarker(namespace.type);
    const at = linux.namespaces.findIndex((n) => n.type === type);
    if (isMarkedForRemoval(namespace.type)) {
      if (at >= 0) linux.namespaces.splice(at, 1);
    } else if (at >= 0) {
      linux.namespaces[at] = namespace;
    } else {
      linux.namespaces.push(namespace);
    }
  }
}

/** Number of path components, the first sort key of the runtime's mount order. */
function depth(destination: string): number {
  const clean = destination.replace(/\/+/g, "/").replace(/(.)\/$/, "$1");
  return clean.split("/").length - 1;
}

/** Mounts are replaced by destination, then sorted by depth and destination. */
function applyMounts(container: Container, mounts: Mount[]): void {
  if (mounts.length === 0) return;
  for (const mount of mounts) {
    const destination = clearRemovalMarker(mount.destination);
    container.mounts = container.mounts.filter((m) => m.destination !== destination);
    if (!isMarkedForRemoval(mount.destination)) container.mounts.push(mount);
  }
  container.mounts.sort(
    (a, b) =>
      depth(a.destination) - depth(b.destination) ||
      (a.destination < b.destination ? -1 : a.destination > b.destination ? 1 : 0),
  );
}

function applyLinux(linux: ReturnType<typeof filledLinux>, adjust: LinuxContainerAdjustment, ignored: string[]): void {
  applyDevices(linux, adjust.devices);
  if (adjust.cgroupsPath !== "") linux.cgroupsPath = adjust.cgroupsPath;
  if (adjust.oomScoreAdj) linux.oomScoreAdj = adjust.oomScoreAdj;
  if (adjust.ioPriority) linux.ioPriority = adjust.ioPriority;
  if (adjust.scheduler) {
    linux.scheduler = adjust.scheduler.policy === LinuxSchedulerPolicy.SCHED_NONE ? undefined : adjust.scheduler;
  }
  if (adjust.seccompPolicy) linux.seccompPolicy = { ...adjust.seccompPolicy, defaultErrno: undefined };
  applyNamespaces(linux, adjust);
  applyMap(linux.sysctl, adjust.sysctl);
  applyMap(linux.netDevices, adjust.netDevices);
  if (adjust.memoryPolicy)
    ignored.push("linux.memoryPolicy (applied to the OCI spec; the Container message has no field for it)");
  if (adjust.resources) ignored.push(...applyResources(linux.resources, adjust.resources, "adjustment"));
  if (adjust.rdt) {
    if (adjust.rdt.remove) linux.rdt = undefined;
    const { closId, schemata, enableMonitoring } = adjust.rdt;
    if (closId || schemata || enableMonitoring) {
      const rdt = (linux.rdt ??= { remove: false });
      if (closId) rdt.closId = closId;
      if (schemata) rdt.schemata = schemata;
      if (enableMonitoring) rdt.enableMonitoring = enableMonitoring;
    }
  }
}

/**
 * Applies the adjustment in place. Returns what a runtime would not apply
 * (e.g. a memory reservation: the OCI generator sets only the limit), so
 * the report can tell the plugin author.
 */
export function applyAdjustment(container: Container, adjust: ContainerAdjustment | undefined): string[] {
  const ignored: string[] = [];
  if (!adjust) return ignored;
  applyMap(container.annotations, adjust.annotations);
  applyEnv(container, adjust.env);
  if (adjust.args.length > 0) container.args = [...adjust.args];
  applyHooks(container, adjust.hooks);
  container.CDIDevices.push(...adjust.CDIDevices);
  if (adjust.linux) applyLinux(filledLinux(container), adjust.linux, ignored);
  applyMounts(container, adjust.mounts);
  container.rlimits.push(...adjust.rlimits);
  return ignored;
}
