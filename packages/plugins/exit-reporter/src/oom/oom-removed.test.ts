/**
 * A cgroup being removed while the reporter reads it: the kernel answers
 * ENODEV (seen on the e2e Kubernetes node, where runc was removing the
 * OOM-killed container's cgroup as the reporter read memory.oom_control).
 * That race cannot be timed from a test, so the read fails as the kernel's did.
 */
import { describe, expect, it, vi } from "vitest";
import { OomVerdict } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import { checkOom, checkOwnCgroup } from "./oom.js";

vi.mock("@nri-ts/stub", async (original) => ({
  ...(await original<typeof import("@nri-ts/stub")>()),
  readRegularFile: async (path: string) => {
    throw Object.assign(new Error(`ENODEV: no such device, read`), { code: "ENODEV", path });
  },
}));

describe("a cgroup being removed", () => {
  it("is said so, not as a read error", async () => {
    const layout = { version: 1, mountPoint: "/sys/fs/cgroup/memory", mountRoot: "/" } as const;
    expect(await checkOom(layout, "/kubepods/burstable/pod1/ctr1")).toEqual({
      verdict: OomVerdict.OOM_VERDICT_UNKNOWN,
      evidence: "the container's cgroup /kubepods/burstable/pod1/ctr1 was being removed",
      path: "/sys/fs/cgroup/memory/kubepods/burstable/pod1/ctr1/memory.oom_control",
    });
    // gone, for the reporter: its parent's count is asked next (on v2)
    expect((await checkOwnCgroup(layout, "/kubepods/burstable/pod1/ctr1")).gone).toEqual({
      cgroup: "/kubepods/burstable/pod1/ctr1",
      how: "was being removed",
    });
  });
});
