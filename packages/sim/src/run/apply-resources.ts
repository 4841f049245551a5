/**
 * Applies Linux resources to a container's resources the way runtimes do,
 * which is not "every field": at creation the OCI spec generator applies
 * the CPU fields, the memory limit (and sets swap to it), hugepage limits,
 * unified keys, the pids limit and device rules; a later update goes through
 * CRI's LinuxContainerResources, which carries the CPU shares, quota,
 * period and cpusets, the memory limit, hugepage limits and unified keys.
 * Everything else is dropped and named in the result, so plugin authors see
 * what a real node would ignore.
 */
import type { HugepageLimit, LinuxCPU, LinuxMemory, LinuxResources } from "@nri-ts/api";

/** `adjustment`: a CreateContainer adjustment; `update`: a container update (solicited or not). */
export type ResourceChange = "adjustment" | "update";

const MEMORY_FIELDS = [
  "limit",
  "reservation",
  "swap",
  "kernel",
  "kernelTcp",
  "swappiness",
  "disableOomKiller",
  "useHierarchy",
] as const;
const CPU_OPTIONALS = ["shares", "quota", "period", "realtimeRuntime", "realtimePeriod"] as const;
const UPDATED_CPU_OPTIONALS: ReadonlySet<string> = new Set(["shares", "quota", "period"]);

function setHugepageLimit(limits: HugepageLimit[], limit: HugepageLimit): void {
  const existing = limits.find((l) => l.pageSize === limit.pageSize);
  if (existing) existing.limit = limit.limit;
  else limits.push({ ...limit });
}

function applyCpu(target: LinuxResources, cpu: LinuxCPU, change: ResourceChange, ignored: string[]): void {
  const out = (target.cpu ??= { cpus: "", mems: "" });
  for (const field of CPU_OPTIONALS) {
    const value = cpu[field];
    if (!value) continue;
    if (change === "update" && !UPDATED_CPU_OPTIONALS.has(field)) ignored.push(`cpu.${field}`);
    else out[field] = { ...value };
  }
  if (cpu.cpus !== "") out.cpus = cpu.cpus;
  if (cpu.mems !== "") out.mems = cpu.mems;
}

function applyMemory(target: LinuxResources, memory: LinuxMemory, change: ResourceChange, ignored: string[]): void {
  for (const field of MEMORY_FIELDS) {
    if (field !== "limit" && memory[field]) ignored.push(`memory.${field}`);
  }
  const limit = memory.limit;
  if (!limit) return;
  const out = (target.memory ??= {});
  if (change === "update") {
    out.limit = { ...limit };
  } else if (limit.value !== 0n) {
    out.limit = { ...limit };
    out.swap = { ...limit };
  }
}

/**
 * Applies `resources` to `target` in place and returns the fields (relative
 * to `resources`, e.g. `memory.reservation`) the runtime would not apply.
 */
export function applyResources(target: LinuxResources, resources: LinuxResources, change: ResourceChange): string[] {
  const ignored: string[] = [];
  if (resources.cpu) applyCpu(target, resources.cpu, change, ignored);
  if (resources.memory) applyMemory(target, resources.memory, change, ignored);
  for (const limit of resources.hugepageLimits) setHugepageLimit(target.hugepageLimits, limit);
  Object.assign(target.unified, resources.unified);
  if (change === "adjustment") {
    if (resources.pids) target.pids = { ...resources.pids };
    target.devices.push(...resources.devices);
    if (resources.blockioClass) target.blockioClass = { ...resources.blockioClass };
    if (resources.rdtClass) target.rdtClass = { ...resources.rdtClass };
  } else {
    if (resources.pids) ignored.push("pids");
    if (resources.devices.length > 0) ignored.push("devices");
    if (resources.blockioClass) ignored.push("blockioClass");
    if (resources.rdtClass) ignored.push("rdtClass");
  }
  return ignored.map((field) => `linux.resources.${field}`);
}
