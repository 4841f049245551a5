import type { LinuxCPU, LinuxMemory, LinuxResources } from "@nri-ts/api";
import type { FilledResources } from "./normalize.js";

function copyOptional<T extends { value: unknown }>(optional: T | undefined): T | undefined {
  return optional === undefined ? undefined : { ...optional };
}

function copyMemory(memory: LinuxMemory): LinuxMemory {
  return {
    limit: copyOptional(memory.limit),
    reservation: copyOptional(memory.reservation),
    swap: copyOptional(memory.swap),
    kernel: copyOptional(memory.kernel),
    kernelTcp: copyOptional(memory.kernelTcp),
    swappiness: copyOptional(memory.swappiness),
    disableOomKiller: copyOptional(memory.disableOomKiller),
    useHierarchy: copyOptional(memory.useHierarchy),
  };
}

function copyCpu(cpu: LinuxCPU): LinuxCPU {
  return {
    shares: copyOptional(cpu.shares),
    quota: copyOptional(cpu.quota),
    period: copyOptional(cpu.period),
    realtimeRuntime: copyOptional(cpu.realtimeRuntime),
    realtimePeriod: copyOptional(cpu.realtimePeriod),
    cpus: cpu.cpus,
    mems: cpu.mems,
  };
}

/**
 * A deep copy of resources as the Go API's `LinuxResources.Copy` makes it:
 * memory and cpu keep their presence, optionals are copied by presence,
 * hugepage limits, unified, pids, classes and cgroup device rules are copied.
 */
export function copyResources(resources: FilledResources): FilledResources;
export function copyResources(resources: LinuxResources): LinuxResources;
export function copyResources(resources: LinuxResources): LinuxResources {
  return {
    memory: resources.memory && copyMemory(resources.memory),
    cpu: resources.cpu && copyCpu(resources.cpu),
    hugepageLimits: resources.hugepageLimits.map((limit) => ({ pageSize: limit.pageSize, limit: limit.limit })),
    blockioClass: copyOptional(resources.blockioClass),
    rdtClass: copyOptional(resources.rdtClass),
    unified: { ...resources.unified },
    devices: resources.devices.map((device) => ({
      allow: device.allow,
      type: device.type,
      major: copyOptional(device.major),
      minor: copyOptional(device.minor),
      access: device.access,
    })),
    pids: resources.pids && { limit: resources.pids.limit },
  };
}
