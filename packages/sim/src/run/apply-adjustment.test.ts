import {
  type Container,
  Container as ContainerFns,
  ContainerAdjustment,
  type DeepPartial,
  LinuxSchedulerPolicy,
} from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { applyAdjustment } from "./apply-adjustment.js";

function container(overrides: Partial<Container> = {}): Container {
  return ContainerFns.fromPartial({
    id: "c1",
    name: "app",
    annotations: { keep: "1", old: "x" },
    env: ["PATH=/bin", "MODE=a", "BROKEN", "LAST=z"],
    args: ["sh"],
    mounts: [
      { destination: "/data", source: "/srv/data", type: "bind", options: ["rbind"] },
      { destination: "/a/b/c", source: "/x", type: "bind" },
    ],
    linux: {
      resources: {
        memory: {},
        cpu: { cpus: "", mems: "" },
        hugepageLimits: [{ pageSize: "2MB", limit: 1n }],
        unified: {},
        devices: [],
      },
      namespaces: [
        { type: "network", path: "/run/netns/a" },
        { type: "ipc", path: "" },
      ],
      sysctl: { "net.core.somaxconn": "128" },
    },
    ...overrides,
  });
}

function adjustment(partial: DeepPartial<ContainerAdjustment>): ContainerAdjustment {
  return ContainerAdjustment.fromPartial(partial);
}

describe("applyAdjustment", () => {
  it("removes marked annotations before setting, whatever the map order", () => {
    const c = container();
    applyAdjustment(c, adjustment({ annotations: { old: "new", "-old": "", added: "y" } }));
    expect(c.annotations).toEqual({ keep: "1", old: "new", added: "y" });
  });

  it("changes env in place, appends new variables, and drops entries without '=' as the OCI generator does", () => {
    const c = container();
    applyAdjustment(
      c,
      adjustment({
        env: [
          { key: "MODE", value: "b" },
          { key: "NEW", value: "1" },
          { key: "-LAST", value: "" },
        ],
      }),
    );
    expect(c.env).toEqual(["PATH=/bin", "MODE=b", "NEW=1"]);
  });

  it("leaves env alone when nothing changes it", () => {
    const c = container();
    applyAdjustment(c, adjustment({}));
    expect(c.env).toEqual(["PATH=/bin", "MODE=a", "BROKEN", "LAST=z"]);
  });

  it("replaces mounts by destination, removes marked ones, then sorts by depth and path", () => {
    const c = container();
    applyAdjustment(
      c,
      adjustment({
        mounts: [
          { destination: "/data", source: "/other", type: "bind", options: ["ro"] },
          { destination: "-/a/b/c" },
          { destination: "/b", source: "tmpfs", type: "tmpfs" },
        ],
      }),
    );
    expect(c.mounts.map((m) => [m.destination, m.source])).toEqual([
      ["/b", "tmpfs"],
      ["/data", "/other"],
    ]);
  });

  it("sets args, appends hooks, rlimits and CDI devices", () => {
    const c = container();
    applyAdjustment(
      c,
      adjustment({
        args: ["nginx", "-g", "daemon off;"],
        hooks: { prestart: [{ path: "/bin/hook" }] },
        rlimits: [{ type: "RLIMIT_NOFILE", hard: 1024n, soft: 512n }],
        CDIDevices: [{ name: "vendor.com/gpu=0" }],
      }),
    );
    expect(c.args).toEqual(["nginx", "-g", "daemon off;"]);
    expect(c.hooks?.prestart.map((h) => h.path)).toEqual(["/bin/hook"]);
    expect(c.rlimits).toEqual([{ type: "RLIMIT_NOFILE", hard: 1024n, soft: 512n }]);
    expect(c.CDIDevices).toEqual([{ name: "vendor.com/gpu=0" }]);
  });

  it("adds devices with a cgroup allow rule (m for block devices)", () => {
    const c = container();
    applyAdjustment(
      c,
      adjustment({
        linux: {
          devices: [
            { path: "/dev/sdb", type: "b", major: 8n, minor: 16n },
            { path: "/dev/null", type: "c", major: 1n, minor: 3n },
          ],
        },
      }),
    );
    expect(c.linux?.devices.map((d) => d.path)).toEqual(["/dev/sdb", "/dev/null"]);
    expect(c.linux?.resources?.devices.map((r) => [r.type, r.major?.value, r.minor?.value, r.access])).toEqual([
      ["b", 8n, 16n, "rwm"],
      ["c", 1n, 3n, "rw"],
    ]);
  });

  it("adds, replaces and removes namespaces by type; sets and removes sysctls", () => {
    const c = container();
    applyAdjustment(
      c,
      adjustment({
        linux: {
          namespaces: [{ type: "network", path: "/run/netns/b" }, { type: "-ipc" }, { type: "cgroup", path: "" }],
          sysctl: { "-net.core.somaxconn": "", "net.ipv4.ip_forward": "1" },
        },
      }),
    );
    expect(c.linux?.namespaces).toEqual([
      { type: "network", path: "/run/netns/b" },
      { type: "cgroup", path: "" },
    ]);
    expect(c.linux?.sysctl).toEqual({ "net.ipv4.ip_forward": "1" });
  });

  it("applies the memory limit (swap follows it) and reports the memory fields runtimes ignore", () => {
    const c = container();
    const ignored = applyAdjustment(
      c,
      adjustment({
        linux: {
          resources: {
            memory: { limit: { value: 512n }, reservation: { value: 256n } },
            cpu: { shares: { value: 100n }, cpus: "0-1" },
            hugepageLimits: [
              { pageSize: "2MB", limit: 4n },
              { pageSize: "1GB", limit: 1n },
            ],
            pids: { limit: 10n },
          },
        },
      }),
    );
    expect(ignored).toEqual(["linux.resources.memory.reservation"]);
    const resources = c.linux?.resources;
    expect(resources?.memory).toEqual({ limit: { value: 512n }, swap: { value: 512n } });
    expect(resources?.cpu).toMatchObject({ shares: { value: 100n }, cpus: "0-1" });
    expect(resources?.hugepageLimits).toEqual([
      { pageSize: "2MB", limit: 4n },
      { pageSize: "1GB", limit: 1n },
    ]);
    expect(resources?.pids).toEqual({ limit: 10n });
  });

  it("maps SCHED_NONE to no scheduler, sets cgroups path and OOM score", () => {
    const c = container();
    applyAdjustment(
      c,
      adjustment({
        linux: {
          scheduler: { policy: LinuxSchedulerPolicy.SCHED_FIFO, priority: 10 },
          cgroupsPath: "/x",
          oomScoreAdj: { value: -500n },
        },
      }),
    );
    expect(c.linux).toMatchObject({ cgroupsPath: "/x", oomScoreAdj: { value: -500n }, scheduler: { priority: 10 } });
    applyAdjustment(c, adjustment({ linux: { scheduler: { policy: LinuxSchedulerPolicy.SCHED_NONE } } }));
    expect(c.linux?.scheduler).toBeUndefined();
  });

  it("clears RDT on remove before setting fields", () => {
    const c = container({
      linux: {
        namespaces: [],
        devices: [],
        cgroupsPath: "",
        sysctl: {},
        netDevices: {},
        rdt: { closId: { value: "a" }, remove: false },
      },
    });
    applyAdjustment(c, adjustment({ linux: { rdt: { remove: true, schemata: { value: ["L3:0=f"] } } } }));
    expect(c.linux?.rdt).toEqual({ remove: false, schemata: { value: ["L3:0=f"] } });
  });
});
