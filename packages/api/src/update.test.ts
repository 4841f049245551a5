import { describe, expect, it } from "vitest";
import { ContainerUpdate } from "./gen/nri/pkg/api/v1alpha1/api.js";
import { UpdateBuilder } from "./update.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

describe("UpdateBuilder", () => {
  it("encodes like the Go reference's ContainerUpdate methods, byte for byte", () => {
    // Go: SetContainerId("ctr1"), SetLinuxMemoryLimit(1<<30), SetLinuxCPUShares(512), SetLinuxCPUSetCPUs("1"),
    // AddLinuxHugepageLimit("1GB", 0), SetLinuxPidLimits(-1), AddLinuxUnified("cpu.weight", "100"),
    // SetLinuxBlockIOClass(""), SetIgnoreFailure() with github.com/containerd/nri v0.12.2.
    const go =
      "0a0463747231123f0a3d0a080a0608808080800412080a030880043201311a050a03314742220032110a0a6370752e77656967687412" +
      "03313030420b08ffffffffffffffffff011801";
    const update = new UpdateBuilder("ctr1")
      .setMemoryLimit(1 << 30)
      .setCpuShares(512)
      .setCpusetCpus("1")
      .addHugepageLimit("1GB", 0)
      .setPidsLimit(-1)
      .addUnified("cpu.weight", "100")
      .setBlockioClass("")
      .setIgnoreFailure()
      .build();
    expect(hex(ContainerUpdate.encode(update).finish())).toBe(go);
  });

  it("has no linux part until a resource is set", () => {
    expect(new UpdateBuilder("c1").build()).toEqual({ containerId: "c1", linux: undefined, ignoreFailure: false });
    expect(hex(ContainerUpdate.encode(new UpdateBuilder("c1").build()).finish())).toBe("0a026331");
  });

  it("covers device cgroup rules and the remaining CPU and memory knobs", () => {
    const update = new UpdateBuilder("c1")
      .addDeviceCgroupRule({ allow: false, access: "rwm" })
      .addDeviceCgroupRule({ allow: true, type: "c", major: 10, minor: 200, access: "rw" })
      .setCpuQuota(50_000)
      .setCpuPeriod(100_000)
      .setCpusetMems("0-1")
      .setMemorySwap(-1)
      .setRdtClass("bronze")
      .setIgnoreFailure(false)
      .build();
    expect(update.linux?.resources).toMatchObject({
      devices: [
        { allow: false, type: "", access: "rwm", major: undefined, minor: undefined },
        { allow: true, type: "c", major: { value: 10n }, minor: { value: 200n }, access: "rw" },
      ],
      cpu: { quota: { value: 50_000n }, period: { value: 100_000n }, mems: "0-1", cpus: "" },
      memory: { swap: { value: -1n } },
      rdtClass: { value: "bronze" },
    });
    expect(update.ignoreFailure).toBe(false);
  });

  it("leaves the update unchanged when a value is rejected", () => {
    const builder = new UpdateBuilder("c1");
    expect(() => builder.addHugepageLimit("2MB", -1)).toThrow(RangeError);
    expect(() => builder.addDeviceCgroupRule({ allow: true, major: 0.5 })).toThrow(RangeError);
    expect(builder.build().linux).toBeUndefined();
  });
});
