import { simulate } from "@nri-ts/sim";
import { describe, expect, it } from "vitest";
import { createWritableCgroups } from "./plugin.js";

const scenario = `
pods:
  - name: web
    annotations:
      writable-cgroups.noderesource.dev: "true"
      writable-cgroups.noderesource.dev/container.locked: "false"
containers:
  - {name: app, pod: web, mounts: [{destination: /sys/fs/cgroup, source: cgroup, type: cgroup, options: [nosuid, noexec, nodev, relatime, ro]}]}
  - {name: locked, pod: web, mounts: [{destination: /sys/fs/cgroup, source: cgroup, type: cgroup, options: [ro]}]}
  - {name: bare, pod: web}
steps: [{run-pod: web}, {create: app}, {create: locked}, {create: bare}]
`;

describe("the writable-cgroups plugin under nri-sim", () => {
  it("makes the annotated containers' cgroup mount read-write, and fails one without such a mount", async () => {
    const report = await simulate(scenario, {
      plugins: [{ plugin: createWritableCgroups({ hostNsDelegate: true }), index: "10", name: "writable-cgroups" }],
      clock: "virtual",
    });
    const [, app, locked, bare] = report.steps;
    // the plugin asks to remove the mount and add its read-write twin; merged, that is the new mount
    expect(app.adjustment).toEqual({
      mounts: [
        {
          destination: "/sys/fs/cgroup",
          source: "cgroup",
          type: "cgroup",
          options: ["nosuid", "noexec", "nodev", "relatime", "rw"],
        },
      ],
    });
    // the runtime replaces the mount: the container ends up with the read-write one only
    expect(app.container?.mounts).toEqual([
      {
        destination: "/sys/fs/cgroup",
        source: "cgroup",
        type: "cgroup",
        options: ["nosuid", "noexec", "nodev", "relatime", "rw"],
      },
    ]);
    expect(locked.adjustment).toEqual({});
    expect(bare.ok).toBe(false);
    expect(bare.error).toContain("no /sys/fs/cgroup mount found to modify, this is unexpected");
  });

  it("changes nothing on a host without nsdelegate", async () => {
    const report = await simulate(scenario, {
      plugins: [{ plugin: createWritableCgroups({ hostNsDelegate: false }), index: "10", name: "writable-cgroups" }],
      clock: "virtual",
    });
    expect(report.failures).toEqual([]);
    expect(report.steps.slice(1).map((s) => s.adjustment)).toEqual([{}, {}, {}]);
  });
});
