import { LinuxResources } from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { copyResources } from "./copy-resources.js";

describe("copyResources (Go's LinuxResources.Copy)", () => {
  it("copies every part deeply", () => {
    const original = LinuxResources.fromPartial({
      memory: { limit: { value: 1n }, useHierarchy: { value: false } },
      cpu: { shares: { value: 2n }, cpus: "0-3", mems: "0" },
      hugepageLimits: [{ pageSize: "2M", limit: 3n }],
      blockioClass: { value: "b" },
      rdtClass: { value: "r" },
      unified: { k: "v" },
      devices: [{ allow: true, type: "c", major: { value: 1n }, access: "rw" }],
      pids: { limit: 4n },
    });
    const copy = copyResources(original);
    expect(LinuxResources.toJSON(copy)).toStrictEqual(LinuxResources.toJSON(original));
    expect(copy.memory?.limit).not.toBe(original.memory?.limit);
    expect(copy.cpu).not.toBe(original.cpu);
    expect(copy.hugepageLimits[0]).not.toBe(original.hugepageLimits[0]);
    expect(copy.unified).not.toBe(original.unified);
    expect(copy.devices[0].major).not.toBe(original.devices[0].major);
    expect(copy.pids).not.toBe(original.pids);
    expect(copy.blockioClass).not.toBe(original.blockioClass);
  });

  it("keeps absent parts absent and present empty parts present", () => {
    expect(copyResources(LinuxResources.fromPartial({})).memory).toBeUndefined();
    expect(copyResources(LinuxResources.fromPartial({ memory: {}, cpu: {} }))).toMatchObject({
      memory: {},
      cpu: { cpus: "", mems: "" },
    });
  });
});
