import { describe, expect, it } from "vitest";
import { AdjustmentBuilder } from "./adjustment.js";
import {
  ContainerAdjustment,
  IOPrioClass,
  LinuxSchedulerFlag,
  LinuxSchedulerPolicy,
  MpolFlag,
  MpolMode,
} from "./gen/nri/pkg/api/v1alpha1/api.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const encode = (adjustment: ContainerAdjustment) => hex(ContainerAdjustment.encode(adjustment).finish());
const fromHex = (text: string) => ContainerAdjustment.decode(Buffer.from(text, "hex"));

/*
 * Expected bytes come from the Go reference: the same changes made with
 * github.com/containerd/nri v0.12.2's ContainerAdjustment methods and
 * marshalled with proto.MarshalOptions{Deterministic: true}. Go writes map
 * entries with an empty value in full (`12 00`) where ts-proto leaves the
 * value out, so for those cases the test decodes Go's bytes and compares
 * messages instead of bytes.
 */
const GO = {
  readme:
    "12140a102d6578616d706c652e636f6d2f6f6c6412001a230a052f64617461120462696e641a092f7372762f6461746122057262696e64" +
    "2202726f22120a094c4f475f4c4556454c12056465627567",
  markers:
    "12060a022d62120012060a01611201311a080a062d2f676f6e6522070a052d484f4d452a2c0a1d0a092f62696e2f686f6f6b1204686f6f6b" +
    "1201781a03413d4222020805320b0a092f62696e2f73746f70328e010a0c0a0a2d2f6465762f6e756c6c0a1c0a092f6465762f6675736512" +
    "0163180a20e5012a0308b60332003a003a0a0a082d6e6574776f726b3a1b0a066367726f757012112f70726f632f312f6e732f6367726f75" +
    "7042190a126e65742e636f72652e736f6d6178636f6e6e12033235364a090a052d6574683912004a110a06686f7374696612070a05637472" +
    "69663a140a0d524c494d49545f4e4f46494c4510c803187b42120a1076656e646f722e636f6d2f6770753d304a05736c6565704a023130",
  updateArgs: "4a004a046563686f4a026869",
  removeNetDevice: "320b4a090a052d657468391200",
  resources:
    "32c0021296010a310a0608808080800412060880808080021a060880808080082204088080402a0508808080013202083c3a0208014202" +
    "0801122c0a03088008120b08ffffffffffffffffff011a0408a08d06220408f0fd392a0408c0843d3203302d333a01301a0b0a03324d42" +
    "10808080800422060a04736c6f772a060a04676f6c6432110a0b6d656d6f72792e686967681202314742030880201a122f6b756265706f" +
    "64732f706f64312f637472220b088cfcffffffffffffff012a0408011005324f0a0e53434d505f4143545f4552524e4f120208011a1053" +
    "434d505f415243485f5838365f36343a270a0472656164120e53434d505f4143545f414c4c4f57220f1001220b53434d505f434d505f45" +
    "5152070802180a2201005a180a070a05636c6f733112090a074c333a303d66661a020801620a08031203302c311a0100",
  removeRdt: "32045a022001",
  zeroes: "320812060a020a004200",
};

function allResources(): AdjustmentBuilder {
  return new AdjustmentBuilder()
    .setMemoryLimit(1n << 30n)
    .setMemoryReservation(1 << 29)
    .setMemorySwap(2 ** 31)
    .setMemoryKernel(1 << 20)
    .setMemoryKernelTcp(1 << 21)
    .setMemorySwappiness(60)
    .setMemoryDisableOomKiller()
    .setMemoryUseHierarchy()
    .setCpuShares(1024)
    .setCpuQuota(-1)
    .setCpuPeriod(100_000)
    .setCpuRealtimeRuntime(950_000)
    .setCpuRealtimePeriod(1_000_000)
    .setCpusetCpus("0-3")
    .setCpusetMems("0")
    .setPidsLimit(4096)
    .addHugepageLimit("2MB", 1n << 30n)
    .setBlockioClass("slow")
    .setRdtClass("gold")
    .addUnified("memory.high", "1G")
    .setCgroupsPath("/kubepods/pod1/ctr")
    .setOomScoreAdj(-500)
    .setIoPriority({ class: IOPrioClass.IOPRIO_CLASS_RT, priority: 5 })
    .setSeccompPolicy({
      defaultAction: "SCMP_ACT_ERRNO",
      defaultErrno: { value: 1 },
      architectures: ["SCMP_ARCH_X86_64"],
      syscalls: [{ names: ["read"], action: "SCMP_ACT_ALLOW", args: [{ index: 0, value: 1n, op: "SCMP_CMP_EQ" }] }],
    })
    .setScheduler({
      policy: LinuxSchedulerPolicy.SCHED_FIFO,
      priority: 10,
      flags: [LinuxSchedulerFlag.SCHED_FLAG_RESET_ON_FORK],
    })
    .setRdtClosId("clos1")
    .setRdtSchemata(["L3:0=ff"])
    .setRdtEnableMonitoring(true)
    .setMemoryPolicy(MpolMode.MPOL_INTERLEAVE, "0,1", MpolFlag.MPOL_F_STATIC_NODES);
}

describe("AdjustmentBuilder against the Go reference", () => {
  it("adds a mount and an env variable and removes an annotation", () => {
    const built = new AdjustmentBuilder()
      .addMount({ destination: "/data", source: "/srv/data", type: "bind", options: ["rbind", "ro"] })
      .addEnv("LOG_LEVEL", "debug")
      .removeAnnotation("example.com/old")
      .build();
    expect(built).toEqual(fromHex(GO.readme));
  });

  it("sends every removal marker the way Go does", () => {
    const built = new AdjustmentBuilder()
      .addAnnotation("a", "1")
      .removeAnnotation("b")
      .removeMount("/gone")
      .removeEnv("HOME")
      .setArgs(["sleep", "10"])
      .removeDevice("/dev/null")
      .addDevice({ path: "/dev/fuse", type: "c", major: 10, minor: 229, fileMode: 0o666, uid: 0, gid: 0 })
      .addCdiDevice("vendor.com/gpu=0")
      .addRlimit("RLIMIT_NOFILE", 456, 123)
      .addHooks({
        prestart: [{ path: "/bin/hook", args: ["hook", "x"], env: ["A=B"], timeout: 5 }],
        poststop: [{ path: "/bin/stop" }],
      })
      .removeNamespace("network")
      .addOrReplaceNamespace({ type: "cgroup", path: "/proc/1/ns/cgroup" })
      .removeNetDevice("eth9")
      .addNetDevice("hostif", { name: "ctrif" })
      .setSysctl("net.core.somaxconn", "256")
      .build();
    expect(built).toEqual(fromHex(GO.markers));
    expect(built.annotations).toEqual({ a: "1", "-b": "" });
    expect(built.mounts.map((m) => m.destination)).toEqual(["-/gone"]);
    expect(built.env).toEqual([{ key: "-HOME", value: "" }]);
    expect(built.linux?.devices.map((d) => d.path)).toEqual(["-/dev/null", "/dev/fuse"]);
    expect(built.linux?.namespaces.map((n) => n.type)).toEqual(["-network", "cgroup"]);
    expect(built.linux?.netDevices).toEqual({ "-eth9": { name: "" }, hostif: { name: "ctrif" } });
  });

  it("encodes a removed net device byte for byte like Go's nil device", () => {
    expect(encode(new AdjustmentBuilder().removeNetDevice("eth9").build())).toBe(GO.removeNetDevice);
  });

  it("marks updateArgs with an empty first argument", () => {
    expect(encode(new AdjustmentBuilder().updateArgs(["echo", "hi"]).build())).toBe(GO.updateArgs);
  });

  it("sets every Linux resource and attribute like Go, byte for byte", () => {
    expect(encode(allResources().build())).toBe(GO.resources);
  });

  it("removes RDT with the remove flag", () => {
    expect(encode(new AdjustmentBuilder().removeRdt().build())).toBe(GO.removeRdt);
  });

  it("sends zero values that are set (an empty wrapper, an empty pids message)", () => {
    expect(encode(new AdjustmentBuilder().setMemoryLimit(0).setPidsLimit(0).build())).toBe(GO.zeroes);
  });
});

describe("AdjustmentBuilder", () => {
  it("builds an empty adjustment, with no linux part, when nothing is set", () => {
    const built = new AdjustmentBuilder().build();
    expect(built).toEqual(ContainerAdjustment.fromPartial({}));
    expect(encode(built)).toBe("");
  });

  it("writes an annotation removal as key -foo", () => {
    // Field 2 (annotations) holding the entry {key: "-foo"}; Go adds the empty value as 12 00.
    expect(encode(new AdjustmentBuilder().removeAnnotation("foo").build())).toBe("12060a042d666f6f");
  });

  it("removes a sysctl with a marked key", () => {
    expect(new AdjustmentBuilder().removeSysctl("net.ipv4.ip_forward").build().linux?.sysctl).toEqual({
      "-net.ipv4.ip_forward": "",
    });
  });

  it("returns a fresh object from each build", () => {
    const builder = new AdjustmentBuilder().addEnv("A", "1").setMemoryLimit(1);
    const first = builder.build();
    first.env[0]!.value = "changed";
    first.linux!.resources!.memory!.limit!.value = 99n;
    builder.addEnv("B", "2");
    const second = builder.build();
    expect(second.env).toEqual([
      { key: "A", value: "1" },
      { key: "B", value: "2" },
    ]);
    expect(second.linux?.resources?.memory?.limit).toEqual({ value: 1n });
    expect(first.env).toHaveLength(1);
  });

  it("copies the caller's arrays", () => {
    const args = ["a"];
    const options = ["ro"];
    const builder = new AdjustmentBuilder().setArgs(args).addMount({ destination: "/x", options });
    args.push("b");
    options.push("rw");
    expect(builder.build()).toMatchObject({ args: ["a"], mounts: [{ options: ["ro"] }] });
  });

  it("accepts generated messages as inputs, Optional wrappers included", () => {
    const device = fromHex(GO.markers).linux!.devices[1]!;
    const hook = fromHex(GO.markers).hooks!.prestart[0]!;
    const built = new AdjustmentBuilder()
      .addDevice(device)
      .addHooks({ prestart: [hook] })
      .build();
    expect(built.linux?.devices[0]).toEqual(device);
    expect(built.hooks?.prestart[0]).toEqual(hook);
  });

  it("appends hooks of several calls in order", () => {
    const built = new AdjustmentBuilder()
      .addHooks({ createRuntime: [{ path: "/a" }] })
      .addHooks({ createRuntime: [{ path: "/b" }], startContainer: [{ path: "/c" }] })
      .build();
    expect(built.hooks?.createRuntime.map((h) => h.path)).toEqual(["/a", "/b"]);
    expect(built.hooks?.startContainer.map((h) => h.path)).toEqual(["/c"]);
  });

  it("rejects numbers that do not fit their field", () => {
    const builder = new AdjustmentBuilder();
    expect(() => builder.setMemoryLimit(1.5)).toThrow(new RangeError("expected an int64, got 1.5"));
    expect(() => builder.setCpuShares(-1)).toThrow(new RangeError("expected a uint64, got -1 (out of range)"));
    expect(() => builder.setMemoryLimit(2 ** 60)).toThrow(/pass a bigint/);
    expect(() => builder.addDevice({ path: "/dev/x", type: "c", uid: -1 })).toThrow(
      new RangeError("expected a uint32, got -1"),
    );
    expect(builder.build()).toEqual(ContainerAdjustment.fromPartial({}));
  });

  it("parses the 64-bit strings that scheduler and seccomp messages accept, and names the field of a bad one", () => {
    const builder = new AdjustmentBuilder().setScheduler({ runtime: "100000", period: 1000000n });
    expect(builder.build().linux?.scheduler).toMatchObject({ runtime: 100000n, period: 1000000n });
    expect(() => builder.setScheduler({ deadline: "1ms" })).toThrow(
      'setScheduler: deadline: expected a uint64 (a safe integer, a bigint or a string of decimal digits), got "1ms"',
    );
    expect(() =>
      builder.setSeccompPolicy({ syscalls: [{ names: ["kill"], args: [{ index: 0, value: "" }] }] }),
    ).toThrow(
      'setSeccompPolicy: syscalls[0].args[0].value: expected a uint64 (a safe integer, a bigint or a string of decimal digits), got ""',
    );
    expect(builder.build().linux?.scheduler?.deadline).toBe(0n);
  });
});
