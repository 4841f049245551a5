/**
 * The suite's own cleanup, proven: what a crashed run leaves (containerd
 * killed with a pod still running: its shim, pause and container
 * processes, rootfs and shm mounts, cgroups, a plugin) is swept by the next
 * run's global setup, so that nothing stays behind on a reused machine.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeE2E } from "./context.js";
import { tsLogger } from "./our-plugins.js";
import { alive, processesMentioning, signal, waitGone } from "./procs.js";
import { Runtime } from "./runtime.js";
import { sweepAbandoned } from "./sweep.js";

const mountsBelow = (base: string) =>
  readFileSync("/proc/mounts", "utf8")
    .split("\n")
    .filter((line) => line.split(" ")[1]?.startsWith(`${base}/`));

const cgroupsOf = (parent: string) =>
  readdirSync("/sys/fs/cgroup").filter((hierarchy) => existsSync(join("/sys/fs/cgroup", hierarchy, parent)));

describeE2E("sweep", () => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await Runtime.start({ label: "sweep" });
    await runtime.startPlugin(tsLogger(runtime, "10"));
  });
  afterAll(() => runtime?.teardown());

  it("a crashed run's pods, mounts, cgroups and processes are swept before the next run", async () => {
    const { base } = runtime.layout;
    const pod = await runtime.pod({ name: "left-behind" });
    const container = await pod.create({ name: "sleeper", script: "echo ready; exec sleep 600" });
    await container.start();
    await container.waitForOutput("ready");
    const sleeper = (await container.inspect()).info?.pid as number;

    // the crash: containerd killed, its owner gone
    const pid = runtime.containerd.pid as number;
    signal(pid, "SIGKILL");
    waitGone(pid, 5_000);
    const dead = spawnSync("true").pid;
    const record = JSON.parse(readFileSync(join(base, "run.json"), "utf8"));
    writeFileSync(join(base, "run.json"), JSON.stringify({ ...record, owner: { pid: dead, start: "0" } }));
    const left = { processes: processesMentioning(base).length, mounts: mountsBelow(base).length };
    const cgroups = cgroupsOf(runtime.cgroupParent).length;
    console.log(
      `left by the crash: ${left.processes} processes, ${left.mounts} mounts, cgroups in ${cgroups} hierarchies`,
    );
    expect(left.processes).toBeGreaterThan(0); // the pod's shim
    expect(alive(sleeper)).toBe(true);
    expect(left.mounts).toBeGreaterThan(0); // rootfs and shm
    expect(cgroups).toBeGreaterThan(0);

    expect(sweepAbandoned()).toContain(base);
    expect(processesMentioning(base)).toEqual([]);
    expect(alive(sleeper)).toBe(false);
    expect(mountsBelow(base)).toEqual([]);
    expect(cgroupsOf(runtime.cgroupParent)).toEqual([]);
    expect(existsSync(base)).toBe(false);
  });
});
