import { describe, expect, it } from "vitest";
import { cgroupDirectory, cgroupPathOnDisk, expandSlice, memoryCgroupFromMountinfo, resolveCgroup } from "./cgroups.js";

/** This machine's mountinfo (Debian 12 VM, cgroup v1 with a cgroup2 "unified" mount). */
const HYBRID = `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`;

/** A cgroup v2 host (systemd's unified layout), with an optional field before the separator. */
const UNIFIED = `22 1 0:21 / /proc rw,nosuid - proc proc rw
29 22 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
`;

describe("memoryCgroupFromMountinfo", () => {
  it("takes the v1 memory hierarchy on a hybrid host", () => {
    expect(memoryCgroupFromMountinfo(HYBRID)).toEqual({
      version: 1,
      mountPoint: "/sys/fs/cgroup/memory",
      mountRoot: "/",
    });
  });

  it("takes the unified hierarchy on a v2 host", () => {
    expect(memoryCgroupFromMountinfo(UNIFIED)).toEqual({ version: 2, mountPoint: "/sys/fs/cgroup", mountRoot: "/" });
  });

  it("keeps the root a cgroup namespace shows, and decodes escaped mount points", () => {
    const namespaced = "50 40 0:26 /kubepods/pod1 /host\\040cgroup rw - cgroup2 cgroup2 rw\n";
    expect(memoryCgroupFromMountinfo(namespaced)).toEqual({
      version: 2,
      mountPoint: "/host cgroup",
      mountRoot: "/kubepods/pod1",
    });
  });

  it("finds nothing without a cgroup mount", () => {
    expect(memoryCgroupFromMountinfo("22 1 0:21 / /proc rw - proc proc rw\n")).toBeUndefined();
    expect(memoryCgroupFromMountinfo("")).toBeUndefined();
  });
});

describe("cgroup paths", () => {
  it("expands systemd slices", () => {
    expect(expandSlice("kubepods-besteffort-pod1234.slice")).toBe(
      "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod1234.slice",
    );
    expect(expandSlice("system.slice")).toBe("/system.slice");
    expect(expandSlice("-.slice")).toBe("/");
  });

  it("reads the cgroupfs driver's paths as they are", () => {
    expect(cgroupDirectory("/k8s.io/3fea")).toBe("/k8s.io/3fea");
    expect(cgroupDirectory("")).toBeUndefined();
  });

  it("reads systemd's slice:prefix:name", () => {
    expect(cgroupDirectory("kubepods-burstable-pod1.slice:cri-containerd:3fea")).toBe(
      "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/cri-containerd-3fea.scope",
    );
    expect(cgroupDirectory(":cri-o:3fea")).toBe("/system.slice/cri-o-3fea.scope");
    expect(cgroupDirectory("-.slice::app.slice")).toBe("/app.slice");
  });

  it("places a cgroup under the mount, or nowhere when the mount does not show it", () => {
    expect(cgroupPathOnDisk({ version: 1, mountPoint: "/sys/fs/cgroup/memory", mountRoot: "/" }, "/k8s.io/3fea")).toBe(
      "/sys/fs/cgroup/memory/k8s.io/3fea",
    );
    const namespaced = { version: 2 as const, mountPoint: "/sys/fs/cgroup", mountRoot: "/kubepods" };
    expect(cgroupPathOnDisk(namespaced, "/kubepods/pod1/3fea")).toBe("/sys/fs/cgroup/pod1/3fea");
    expect(cgroupPathOnDisk(namespaced, "/kubepodsx/3fea")).toBeUndefined();
    expect(cgroupPathOnDisk(namespaced, "/k8s.io/3fea")).toBeUndefined();
  });

  it("resolves '.' and '..', and places nowhere a path that climbs out of the hierarchy or the mount's view", () => {
    expect(resolveCgroup("/kubepods/./pod1/../pod2//3fea")).toBe("/kubepods/pod2/3fea");
    expect(resolveCgroup("/kubepods/../../../tmp")).toBeUndefined();
    expect(resolveCgroup("/..")).toBeUndefined();
    const v1 = { version: 1 as const, mountPoint: "/sys/fs/cgroup/memory", mountRoot: "/" };
    expect(cgroupPathOnDisk(v1, "/kubepods/../../../../tmp/x")).toBeUndefined();
    expect(cgroupPathOnDisk(v1, "/kubepods/../k8s.io/3fea")).toBe("/sys/fs/cgroup/memory/k8s.io/3fea");
    const namespaced = { version: 2 as const, mountPoint: "/sys/fs/cgroup", mountRoot: "/kubepods" };
    expect(cgroupPathOnDisk(namespaced, "/kubepods/../k8s.io/3fea")).toBeUndefined();
    expect(cgroupPathOnDisk(namespaced, "/kubepods/pod1/../pod2")).toBe("/sys/fs/cgroup/pod2");
  });
});
