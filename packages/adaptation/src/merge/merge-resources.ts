import type { LinuxCPU, LinuxMemory, LinuxResources } from "@nri-ts/api";
import { Field } from "@nri-ts/api";
import type { SimpleField } from "./fields.js";
import type { AdjustmentTarget } from "./merge-context.js";
import type { FilledResources } from "./normalize.js";
import type { Ownership } from "./owners.js";

/** Who claims, for which container. */
export interface Claimant {
  readonly owners: Ownership;
  readonly id: string;
  readonly plugin: string;
}

type OptionalKey<T> = { [K in keyof T]-?: NonNullable<T[K]> extends { value: unknown } ? K : never }[keyof T];

/** Memory optionals in the order Go claims them. */
const MEMORY_FIELDS: ReadonlyArray<readonly [OptionalKey<LinuxMemory>, SimpleField]> = [
  ["limit", Field.MemLimit],
  ["reservation", Field.MemReservation],
  ["swap", Field.MemSwapLimit],
  ["kernel", Field.MemKernelLimit],
  ["kernelTcp", Field.MemTCPLimit],
  ["swappiness", Field.MemSwappiness],
  ["disableOomKiller", Field.MemDisableOomKiller],
  ["useHierarchy", Field.MemUseHierarchy],
];

/** CPU optionals in the order Go claims them; cpus and mems follow. */
const CPU_FIELDS: ReadonlyArray<readonly [OptionalKey<LinuxCPU>, SimpleField]> = [
  ["shares", Field.CPUShares],
  ["quota", Field.CPUQuota],
  ["period", Field.CPUPeriod],
  ["realtimeRuntime", Field.CPURealtimeRuntime],
  ["realtimePeriod", Field.CPURealtimePeriod],
];

/** Claim and copy every set optional of `from` into each target, in order. */
function mergeOptionals<T, K extends keyof T>(
  from: T,
  fields: ReadonlyArray<readonly [K, SimpleField]>,
  targets: readonly T[],
  claimant: Claimant,
): void {
  for (const [key, field] of fields) {
    const value = from[key];
    if (value === undefined) continue;
    claimant.owners.claim(claimant.id, field, claimant.plugin);
    for (const target of targets) target[key] = { ...value };
  }
}

/** Memory: each set optional is claimed, then overwrites the targets' value. */
export function mergeMemory(
  memory: LinuxMemory | undefined,
  targets: readonly LinuxMemory[],
  claimant: Claimant,
): void {
  if (memory === undefined) return;
  mergeOptionals(memory, MEMORY_FIELDS, targets, claimant);
}

/** CPU: each set optional, then non-empty cpus and mems, is claimed and overwrites the targets' value. */
export function mergeCpu(cpu: LinuxCPU | undefined, targets: readonly LinuxCPU[], claimant: Claimant): void {
  if (cpu === undefined) return;
  mergeOptionals(cpu, CPU_FIELDS, targets, claimant);
  const { owners, id, plugin } = claimant;
  if (cpu.cpus !== "") {
    owners.claim(id, Field.CPUSetCPUs, plugin);
    for (const target of targets) target.cpus = cpu.cpus;
  }
  if (cpu.mems !== "") {
    owners.claim(id, Field.CPUSetMems, plugin);
    for (const target of targets) target.mems = cpu.mems;
  }
}

/**
 * Resources of the container being created. Hugepage limits and cgroup
 * device rules are appended (device rules without ownership), unified keys
 * set, classes overwritten; pids are claimed whenever present, even with
 * limit 0, and one new object goes to both the reply and the request copy.
 */
export function mergeAdjustedResources(resources: LinuxResources | undefined, target: AdjustmentTarget): void {
  if (resources === undefined) return;
  const { owners, id, plugin } = target;
  const container: FilledResources = target.container.linux.resources;
  const reply: FilledResources = target.reply.linux.resources;

  mergeMemory(resources.memory, [container.memory, reply.memory], target);
  mergeCpu(resources.cpu, [container.cpu, reply.cpu], target);

  for (const limit of resources.hugepageLimits) {
    owners.claimEntry(id, Field.HugepageLimits, limit.pageSize, plugin);
    container.hugepageLimits.push(limit);
    reply.hugepageLimits.push(limit);
  }
  for (const device of resources.devices) {
    container.devices.push(device);
    reply.devices.push(device);
  }
  for (const [key, value] of Object.entries(resources.unified)) {
    owners.claimEntry(id, Field.CgroupsUnified, key, plugin);
    container.unified[key] = value;
    reply.unified[key] = value;
  }
  if (resources.blockioClass !== undefined) {
    owners.claim(id, Field.BlockioClass, plugin);
    container.blockioClass = { ...resources.blockioClass };
    reply.blockioClass = { ...resources.blockioClass };
  }
  if (resources.rdtClass !== undefined) {
    owners.claim(id, Field.RdtClass, plugin);
    container.rdtClass = { ...resources.rdtClass };
    reply.rdtClass = { ...resources.rdtClass };
  }
  if (resources.pids !== undefined) {
    owners.claim(id, Field.PidsLimit, plugin);
    const pids = { limit: resources.pids.limit };
    container.pids = pids;
    reply.pids = pids;
  }
}
