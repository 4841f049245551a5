/**
 * Setters for every Linux resource, shared by the adjustment and update
 * builders. Each setter creates the enclosing messages on first use, so a
 * builder that sets nothing leaves `linux` and `resources` absent, as the Go
 * reference's helpers do.
 */
import {
  HugepageLimit,
  LinuxCPU,
  LinuxDeviceCgroup,
  LinuxMemory,
  type LinuxResources,
} from "./gen/nri/pkg/api/v1alpha1/api.js";
import {
  type Int64Like,
  optionalBool,
  optionalInt64,
  optionalString,
  optionalUInt64,
  toInt64,
  toUInt64,
} from "./optional.js";

/** A cgroup device rule (`linux.resources.devices`); absent major/minor mean "any". */
export interface DeviceCgroupRule {
  allow: boolean;
  /** `a` (all), `c` (char) or `b` (block). */
  type?: string;
  major?: Int64Like;
  minor?: Int64Like;
  /** Some of `r`, `w`, `m`. */
  access?: string;
}

/**
 * Each setter checks its value before touching anything, so one that throws
 * leaves the builder as it was.
 */
export abstract class LinuxResourceSetters {
  /** The resources to change, created on first use. */
  protected abstract resources(): LinuxResources;

  #memory(): LinuxMemory {
    const resources = this.resources();
    return (resources.memory ??= LinuxMemory.fromPartial({}));
  }

  #cpu(): LinuxCPU {
    const resources = this.resources();
    return (resources.cpu ??= LinuxCPU.fromPartial({}));
  }

  /** Memory limit in bytes (`memory.max`). */
  setMemoryLimit(bytes: Int64Like): this {
    const value = optionalInt64(bytes);
    this.#memory().limit = value;
    return this;
  }

  /** Memory reservation (soft limit) in bytes. */
  setMemoryReservation(bytes: Int64Like): this {
    const value = optionalInt64(bytes);
    this.#memory().reservation = value;
    return this;
  }

  /** Memory plus swap limit in bytes. */
  setMemorySwap(bytes: Int64Like): this {
    const value = optionalInt64(bytes);
    this.#memory().swap = value;
    return this;
  }

  /** Kernel memory limit in bytes (cgroup v1 only; deprecated by the kernel). */
  setMemoryKernel(bytes: Int64Like): this {
    const value = optionalInt64(bytes);
    this.#memory().kernel = value;
    return this;
  }

  /** Kernel TCP buffer memory limit in bytes (cgroup v1). */
  setMemoryKernelTcp(bytes: Int64Like): this {
    const value = optionalInt64(bytes);
    this.#memory().kernelTcp = value;
    return this;
  }

  /** Swappiness, 0 to 100 (cgroup v1). */
  setMemorySwappiness(swappiness: Int64Like): this {
    const value = optionalUInt64(swappiness);
    this.#memory().swappiness = value;
    return this;
  }

  setMemoryDisableOomKiller(disable = true): this {
    const value = optionalBool(disable);
    this.#memory().disableOomKiller = value;
    return this;
  }

  setMemoryUseHierarchy(use = true): this {
    const value = optionalBool(use);
    this.#memory().useHierarchy = value;
    return this;
  }

  /** CPU shares (cgroup v1 `cpu.shares`; runtimes map it to `cpu.weight` on v2). */
  setCpuShares(shares: Int64Like): this {
    const value = optionalUInt64(shares);
    this.#cpu().shares = value;
    return this;
  }

  /** CFS quota in microseconds per period; -1 means unlimited. */
  setCpuQuota(microseconds: Int64Like): this {
    const value = optionalInt64(microseconds);
    this.#cpu().quota = value;
    return this;
  }

  /** CFS period in microseconds. */
  setCpuPeriod(microseconds: Int64Like): this {
    const value = optionalUInt64(microseconds);
    this.#cpu().period = value;
    return this;
  }

  setCpuRealtimeRuntime(microseconds: Int64Like): this {
    const value = optionalInt64(microseconds);
    this.#cpu().realtimeRuntime = value;
    return this;
  }

  setCpuRealtimePeriod(microseconds: Int64Like): this {
    const value = optionalUInt64(microseconds);
    this.#cpu().realtimePeriod = value;
    return this;
  }

  /** Cpuset CPUs, e.g. `"0-3,8"`. The runtime ignores an empty string. */
  setCpusetCpus(cpus: string): this {
    this.#cpu().cpus = cpus;
    return this;
  }

  /** Cpuset memory nodes, e.g. `"0"`. The runtime ignores an empty string. */
  setCpusetMems(mems: string): this {
    this.#cpu().mems = mems;
    return this;
  }

  /** Appends a hugepage limit, e.g. `("2MB", 1n << 30n)`. */
  addHugepageLimit(pageSize: string, bytes: Int64Like): this {
    const limit = HugepageLimit.fromPartial({ pageSize, limit: toUInt64(bytes) });
    this.resources().hugepageLimits.push(limit);
    return this;
  }

  /** Block I/O class, which the runtime turns into I/O settings from its own configuration. */
  setBlockioClass(className: string): this {
    this.resources().blockioClass = optionalString(className);
    return this;
  }

  /** RDT class, which the runtime turns into cache and memory bandwidth settings. */
  setRdtClass(className: string): this {
    this.resources().rdtClass = optionalString(className);
    return this;
  }

  /** Sets a cgroup v2 unified key, e.g. `("memory.high", "1G")`. */
  addUnified(key: string, value: string): this {
    this.resources().unified[key] = value;
    return this;
  }

  /** Maximum number of processes; the message is sent even for 0. */
  setPidsLimit(limit: Int64Like): this {
    const pids = { limit: toInt64(limit) };
    this.resources().pids = pids;
    return this;
  }

  /** Appends a cgroup device rule. */
  addDeviceCgroupRule(rule: DeviceCgroupRule): this {
    const device = LinuxDeviceCgroup.fromPartial({
      allow: rule.allow,
      type: rule.type ?? "",
      major: rule.major === undefined ? undefined : optionalInt64(rule.major),
      minor: rule.minor === undefined ? undefined : optionalInt64(rule.minor),
      access: rule.access ?? "",
    });
    this.resources().devices.push(device);
    return this;
  }
}
