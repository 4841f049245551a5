/**
 * Reads `resources:` blocks of a scenario into the protocol's
 * `LinuxResources`: the fields a CRI runtime passes to NRI, with byte
 * counts in Kubernetes notation.
 */
import type { LinuxCPU, LinuxMemory, LinuxResources } from "@nri-ts/api";
import { isScalar } from "yaml";
import { parseQuantity } from "./quantity.js";
import type { YamlValue } from "./yaml-value.js";

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

/**
 * A 64-bit integer written as a number or a quantity (`256Mi`, `1G`, `-1`).
 * Unsigned fields refuse negative values.
 */
export function readInt64(value: YamlValue, unsigned = false): bigint | undefined {
  const node = value.node;
  const what = unsigned ? "a whole number of at least 0 (e.g. 512 or 256Mi)" : "a whole number (e.g. 512, 256Mi or -1)";
  let parsed: bigint | undefined;
  if (node && isScalar(node)) {
    if (typeof node.value === "number" && Number.isSafeInteger(node.value)) parsed = BigInt(node.value);
    else if (typeof node.value === "string" || typeof node.value === "number") {
      parsed = parseQuantity(String(node.source ?? node.value));
    }
  }
  if (parsed === undefined || parsed < (unsigned ? 0n : INT64_MIN) || parsed > (unsigned ? UINT64_MAX : INT64_MAX)) {
    return value.expected(what);
  }
  return parsed;
}

function optionalInt64(value: YamlValue, unsigned = false): { value: bigint } | undefined {
  if (!value.present) return undefined;
  const parsed = readInt64(value, unsigned);
  return parsed === undefined ? undefined : { value: parsed };
}

function optionalBool(value: YamlValue): { value: boolean } | undefined {
  if (!value.present) return undefined;
  const parsed = value.boolean();
  return parsed === undefined ? undefined : { value: parsed };
}

const CPU_FIELDS = ["shares", "quota", "period", "realtimeRuntime", "realtimePeriod", "cpus", "mems"] as const;
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
const RESOURCE_FIELDS = ["cpu", "memory", "hugepageLimits", "unified", "blockioClass", "rdtClass", "pids"] as const;

function readCpu(value: YamlValue): LinuxCPU | undefined {
  const f = value.fields(CPU_FIELDS);
  if (!f) return undefined;
  return {
    shares: optionalInt64(f.shares, true),
    quota: optionalInt64(f.quota),
    period: optionalInt64(f.period, true),
    realtimeRuntime: optionalInt64(f.realtimeRuntime),
    realtimePeriod: optionalInt64(f.realtimePeriod, true),
    cpus: f.cpus.optional((v) => v.string()) ?? "",
    mems: f.mems.optional((v) => v.string()) ?? "",
  };
}

function readMemory(value: YamlValue): LinuxMemory | undefined {
  const f = value.fields(MEMORY_FIELDS);
  if (!f) return undefined;
  return {
    limit: optionalInt64(f.limit),
    reservation: optionalInt64(f.reservation),
    swap: optionalInt64(f.swap),
    kernel: optionalInt64(f.kernel),
    kernelTcp: optionalInt64(f.kernelTcp),
    swappiness: optionalInt64(f.swappiness, true),
    disableOomKiller: optionalBool(f.disableOomKiller),
    useHierarchy: optionalBool(f.useHierarchy),
  };
}

function readPids(value: YamlValue): { limit: bigint } | undefined {
  const node = value.node;
  if (node && isScalar(node)) {
    const limit = readInt64(value);
    return limit === undefined ? undefined : { limit };
  }
  const f = value.fields(["limit"], "a number or {limit: N}");
  const limit = f && readInt64(f.limit);
  return limit === undefined ? undefined : { limit };
}

/** A `resources:` mapping. Absent parts stay absent ("leave it alone"). */
export function readResources(value: YamlValue): LinuxResources | undefined {
  const f = value.fields(RESOURCE_FIELDS);
  if (!f) return undefined;
  const hugepageLimits =
    f.hugepageLimits
      .optional((v) => v.list())
      ?.map((item) => {
        const h = item.fields(["pageSize", "limit"]);
        const pageSize = h?.pageSize.string("a page size such as 2MB or 1GB") ?? "";
        const limit = h ? (readInt64(h.limit, true) ?? 0n) : 0n;
        return { pageSize, limit };
      }) ?? [];
  const blockioClass = f.blockioClass.optional((v) => v.string());
  const rdtClass = f.rdtClass.optional((v) => v.string());
  return {
    cpu: f.cpu.optional(readCpu),
    memory: f.memory.optional(readMemory),
    hugepageLimits,
    unified: f.unified.optional((v) => v.stringMap()) ?? {},
    blockioClass: blockioClass === undefined ? undefined : { value: blockioClass },
    rdtClass: rdtClass === undefined ? undefined : { value: rdtClass },
    devices: [],
    pids: f.pids.optional(readPids),
  };
}
