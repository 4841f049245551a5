/**
 * Test support: the Linux resources upstream's mock plugin
 * (pkg/adaptation/suite_test.go, v0.12.2) sends for each resource subject,
 * in adjustments and in updates alike. Not part of the package build.
 */
import type { DeepPartial, LinuxResources } from "@nri-ts/api";

export type MockResourceSubject = "cpu" | "memory" | "classes" | "hugepagelimits" | "unified";

/** What upstream's mock plugin `plugin` sets for a resource subject. */
export function mockResources(subject: MockResourceSubject, plugin: string): DeepPartial<LinuxResources> {
  switch (subject) {
    case "cpu":
      return {
        cpu: {
          shares: { value: 123n },
          quota: { value: 456n },
          period: { value: 789n },
          realtimeRuntime: { value: 321n },
          realtimePeriod: { value: 654n },
          cpus: "0-1",
          mems: "2-3",
        },
      };
    case "memory":
      return {
        memory: {
          limit: { value: 1234000n },
          reservation: { value: 4000n },
          swap: { value: 34000n },
          kernel: { value: 30000n },
          kernelTcp: { value: 2000n },
          swappiness: { value: 987n },
          disableOomKiller: { value: true },
          useHierarchy: { value: true },
        },
      };
    case "classes":
      return { rdtClass: { value: plugin }, blockioClass: { value: plugin } };
    case "hugepagelimits":
      return {
        hugepageLimits: [
          { pageSize: "1M", limit: 4096n },
          { pageSize: "4M", limit: 1024n },
        ],
      };
    case "unified":
      return { unified: { "resource.1": "value1", "resource.2": "value2" } };
  }
}
