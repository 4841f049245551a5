/**
 * The suite's own cleanup, proven: what a crashed run leaves (containerd
 * killed with a pod still running: its shim, pause and container
 * processes, rootfs and shm mounts, cgroups, a plugin) is swept by the next
 * run's global setup, so that nothing stays behind on a reused machine;
 * and the sweep never touches a live run's directory, nor fails when one
 * goes away under it (other test files tear theirs down meanwhile).
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { describeE2E } from "./context.js";
import { tsLogger } from "./our-plugins.js";
import { alive, processesMentioning, signal, startTime, waitGone } from "./procs.js";
import { Runtime } from "./runtime.js";
import { sweepAbandoned, writeRunRecord } from "./sweep.js";

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

describe("which directories the sweep takes", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "nri-e2e-sweep-"));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A runtime directory as a run leaves it, with a record naming `owner` (none: not written yet). */
  const runDir = (name: string, owner?: { pid: number; start: string }) => {
    const base = join(root, name);
    mkdirSync(base);
    writeFileSync(join(base, "containerd.log"), "");
    if (owner) writeRunRecord(base, { owner, containerdBin: "/nonexistent", crictl: "/nonexistent", cgroupParent: "" });
    return base;
  };
  const age = (dir: string, seconds: number) => {
    const then = new Date(Date.now() - seconds * 1000);
    utimesSync(dir, then, then);
  };

  it("passes over an entry that is gone by the time it looks (another file's runtime, torn down meanwhile)", () => {
    // listed by the walk, but a stat finds nothing: what a directory removed after readdir looks like
    symlinkSync(join(root, "removed"), join(root, "rt-vanished"));
    expect(sweepAbandoned(root)).toEqual([]);
  });

  it("takes the directories of runs that are over, and leaves live runs' and everything else alone", () => {
    const live = runDir("rt-live", { pid: process.pid, start: startTime(process.pid) ?? "" });
    const beingMade = runDir("rt-being-made");
    const dead = runDir("rt-dead", { pid: spawnSync("true").pid, start: "0" });
    const diedWhileMaking = runDir("rt-died-while-making");
    const notOurs = runDir("k8s-not-a-runtime");
    age(diedWhileMaking, 120);
    age(notOurs, 120);

    expect(sweepAbandoned(root).sort()).toEqual([dead, diedWhileMaking].sort());
    expect([live, beingMade, notOurs].filter(existsSync)).toEqual([live, beingMade, notOurs]);
    expect(readdirSync(live).sort()).toEqual(["containerd.log", "run.json"]);
  });
});
