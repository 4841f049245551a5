import type { DeepPartial } from "@nri-ts/api";
import {
  type ContainerAdjustment,
  CreateContainerRequest,
  CreateContainerResponse,
  Field,
  IOPrioClass,
} from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { CreateContainerResult } from "../create-container-result.js";

function create(): CreateContainerResult {
  return new CreateContainerResult(
    CreateContainerRequest.fromPartial({
      container: { id: "ctr0", args: ["sh", "-c", "true"], rlimits: [{ type: "nofile", hard: 10n, soft: 10n }] },
    }),
  );
}

const respond = (adjust: DeepPartial<ContainerAdjustment>) => CreateContainerResponse.fromPartial({ adjust });

describe("args", () => {
  it("replaces the args in the reply and the request copy", () => {
    const result = create();
    result.apply(respond({ args: ["echo", "hi"] }), "00-a");
    expect(result.response().adjust?.args).toStrictEqual(["echo", "hi"]);
    expect(result.request.container.args).toStrictEqual(["echo", "hi"]);
  });

  it('lets a leading "" (UpdateArgs) replace an earlier plugin\'s args', () => {
    const result = create();
    result.apply(respond({ args: ["echo", "hi"] }), "00-a");
    result.apply(respond({ args: ["", ...result.request.container.args, "again"] }), "10-b");
    expect(result.response().adjust?.args).toStrictEqual(["echo", "hi", "again"]);
    expect(result.owners.owner("ctr0", Field.Args)).toBe("10-b");
  });

  it('edge: a lone "" clears and claims, leaving empty args in the reply', () => {
    const result = create();
    result.apply(respond({ args: ["echo"] }), "00-a");
    result.apply(respond({ args: [""] }), "10-b");
    expect(result.response().adjust?.args).toStrictEqual([]);
    expect(result.request.container.args).toStrictEqual([]);
    expect(result.owners.owner("ctr0", Field.Args)).toBe("10-b");
  });

  it("ignores empty args", () => {
    const result = create();
    result.apply(respond({ args: [] }), "00-a");
    expect(result.request.container.args).toStrictEqual(["sh", "-c", "true"]);
    expect(result.owners.owner("ctr0", Field.Args)).toBeUndefined();
  });
});

describe("hooks", () => {
  it("appends every hook list to reply and request copy, claiming only when something was added", () => {
    const result = create();
    result.apply(respond({ hooks: {} }), "00-a");
    expect(result.owners.owner("ctr0", Field.OciHooks)).toBeUndefined();
    result.apply(respond({ hooks: { poststop: [{ path: "/stop" }], createRuntime: [{ path: "/cr" }] } }), "10-b");
    result.apply(respond({ hooks: { poststop: [{ path: "/stop2" }] } }), "20-c");
    const hooks = result.response().adjust?.hooks;
    expect(hooks?.poststop.map((hook) => hook.path)).toStrictEqual(["/stop", "/stop2"]);
    expect(hooks?.createRuntime.map((hook) => hook.path)).toStrictEqual(["/cr"]);
    expect(result.request.container.hooks.poststop.map((hook) => hook.path)).toStrictEqual(["/stop", "/stop2"]);
    expect(result.owners.owner("ctr0", Field.OciHooks)).toBe("10-b,20-c");
  });
});

describe("whole-value Linux fields", () => {
  it.each([
    ["cgroupsPath", { cgroupsPath: "/a" }, { cgroupsPath: "/b" }, "CgroupsPath"],
    ["oomScoreAdj", { oomScoreAdj: { value: 0n } }, { oomScoreAdj: { value: -1n } }, "OomScoreAdj"],
    [
      "ioPriority",
      { ioPriority: { class: IOPrioClass.IOPRIO_CLASS_BE } },
      { ioPriority: { priority: 1 } },
      "IoPriority",
    ],
    [
      "seccompPolicy",
      { seccompPolicy: { defaultAction: "A" } },
      { seccompPolicy: { defaultAction: "B" } },
      "SeccompPolicy",
    ],
    ["scheduler", { scheduler: { nice: 1 } }, { scheduler: { nice: 2 } }, "LinuxSched"],
    ["memoryPolicy", { memoryPolicy: { nodes: "0" } }, { memoryPolicy: { nodes: "1" } }, "MemoryPolicy"],
  ] as const)("%s is claimed and conflicts on a second plugin", (_key, first, second, name) => {
    const result = create();
    result.apply(respond({ linux: first }), "00-a");
    expect(() => result.apply(respond({ linux: second }), "10-b")).toThrow(
      `plugins "10-b" and "00-a" both tried to set ${name} `,
    );
  });

  it("applies oom score, I/O priority, seccomp and scheduler to the request copy but not the memory policy", () => {
    const result = create();
    const linux = {
      cgroupsPath: "/a",
      oomScoreAdj: { value: 0n },
      ioPriority: { class: IOPrioClass.IOPRIO_CLASS_IDLE, priority: 0 },
      seccompPolicy: { defaultAction: "SCMP_ACT_ERRNO" },
      scheduler: { nice: 5 },
      memoryPolicy: { nodes: "0-1" },
    };
    const response = respond({ linux });
    result.apply(response, "00-a");
    const container = result.request.container.linux;
    const reply = result.response().adjust?.linux;
    expect(container.cgroupsPath).toBe("/a");
    expect(container.oomScoreAdj).toStrictEqual({ value: 0n });
    expect(container.ioPriority).toBe(reply?.ioPriority);
    expect(container.seccompPolicy).toBe(reply?.seccompPolicy);
    expect(container.scheduler).toBe(reply?.scheduler);
    expect(reply?.memoryPolicy).toStrictEqual(response.adjust?.linux?.memoryPolicy);
    expect(container).not.toHaveProperty("memoryPolicy");
  });

  it("skips an empty cgroups path", () => {
    const result = create();
    result.apply(respond({ linux: { cgroupsPath: "" } }), "00-a");
    result.apply(respond({ linux: { cgroupsPath: "/b" } }), "10-b");
    expect(result.response().adjust?.linux?.cgroupsPath).toBe("/b");
  });
});

describe("rlimits and CDI devices", () => {
  it("appends rlimits to both sides without de-duplicating the container's own", () => {
    const result = create();
    result.apply(respond({ rlimits: [{ type: "nofile", hard: 20n, soft: 20n }] }), "00-a");
    expect(result.response().adjust?.rlimits).toStrictEqual([{ type: "nofile", hard: 20n, soft: 20n }]);
    expect(result.request.container.rlimits.map((limit) => limit.hard)).toStrictEqual([10n, 20n]);
    expect(() => result.apply(respond({ rlimits: [{ type: "nofile", hard: 30n, soft: 30n }] }), "10-b")).toThrow(
      'plugins "10-b" and "00-a" both tried to set Rlimits nofile',
    );
  });

  it("appends CDI devices to the reply only and rejects a second injection of one name", () => {
    const result = create();
    result.apply(respond({ CDIDevices: [{ name: "vendor.com/gpu=0" }] }), "00-a");
    expect(result.response().adjust?.CDIDevices).toStrictEqual([{ name: "vendor.com/gpu=0" }]);
    expect(result.request.container.CDIDevices).toStrictEqual([]);
    expect(() => result.apply(respond({ CDIDevices: [{ name: "vendor.com/gpu=0" }] }), "10-b")).toThrow(
      'plugins "10-b" and "00-a" both tried to set CdiDevices vendor.com/gpu=0',
    );
  });
});
