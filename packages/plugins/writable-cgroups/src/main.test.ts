import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pluginProgram, simulate } from "@nri-ts/sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const program = pluginProgram(join(import.meta.dirname, "main.ts"));

// Each test starts the program (Node with tsx), which takes seconds on a busy machine.
describe("nri-writable-cgroups", { timeout: 120_000 }, () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "nri-writable-cgroups-"));
    await writeFile(join(dir, "mountinfo"), "29 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n");
    await program.install(dir, "10-writable-cgroups", ["-host-mount-file", join(dir, "mountinfo")]);
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("prints its usage for -h and refuses unknown flags, as Go's flag package does", async () => {
    const help = await program.run("-h");
    expect(help.code).toBe(0);
    expect(help.stderr).toContain(
      '  -host-mount-file string\n    \tpath to the host mountinfo file to check for nsdelegate (default "/host/proc/1/mountinfo")',
    );
    const bad = await program.run("-nsdelegate");
    expect(bad.code).toBe(2);
    expect(bad.stderr.split("\n")[0]).toBe("flag provided but not defined: -nsdelegate");
  });

  it("says whether the host allows writable cgroups, in the Go plugins' text format", async () => {
    const none = join(dir, "none.sock");
    const missing = await program.run("-idx", "10", "-socket-path", none, "-host-mount-file", join(dir, "nope"));
    expect(missing.stderr.split("\n")[0]).toBe(
      `time=${missing.stderr.match(/^time=("[^"]+")/)?.[1]} level=warning msg="Failed to check for nsdelegate option on host cgroup mount, disabling writable cgroups" error="failed to open mount file \\"${join(dir, "nope")}\\": open ${join(dir, "nope")}: no such file or directory"`,
    );
    const enabled = await program.run("-idx", "10", "-socket-path", none, "-host-mount-file", join(dir, "mountinfo"));
    expect(enabled.stderr.split("\n")[0]).toMatch(
      / level=info msg="Host cgroup mount has 'nsdelegate' option, enabling writable cgroups support"$/,
    );
  });

  it("adjusts the cgroup mount when a runtime launches it", async () => {
    const report = await simulate(
      `
runtime: {registrationTimeout: 60s}  # launched with Node and tsx: seconds on a busy machine
pods: [{name: web, annotations: {writable-cgroups.noderesource.dev/pod: "true"}}]
containers: [{name: app, pod: web, mounts: [{destination: /sys/fs/cgroup, source: cgroup, type: cgroup, options: [ro]}]}]
steps: [{run-pod: web}, {create: app}]
`,
      { pluginDir: dir, clock: "virtual" },
    );
    expect(report.failures).toEqual([]);
    expect(report.steps[1].adjustment).toEqual({
      mounts: [{ destination: "/sys/fs/cgroup", source: "cgroup", type: "cgroup", options: ["rw"] }],
    });
  });
});
