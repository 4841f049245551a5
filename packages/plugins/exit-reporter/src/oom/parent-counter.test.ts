import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Container, PodSandbox } from "@nri-ts/api";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type OomCheck, OomVerdict } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import { type CgroupLayout, localEventsOn } from "./cgroups.js";
import { checkOwnCgroup } from "./oom.js";
import { ParentOomCounters } from "./parent-counter.js";

const POD = "/kubepods.slice/kubepods-pod1.slice";
const pod = PodSandbox.fromPartial({ id: "p1", linux: { cgroupParent: "kubepods-pod1.slice" } });

function container(id: string, name = id): Container {
  return Container.fromPartial({ id, name, linux: { cgroupsPath: `kubepods-pod1.slice:cri-containerd:${id}` } });
}

const events = (oomKills: number) => `low 0\nhigh 0\nmax 3\noom 1\noom_kill ${oomKills}\noom_group_kill 0\n`;

describe("the parent cgroup's count, when the container's own cgroup is gone (cgroup v2)", () => {
  let root: string;
  let v2: CgroupLayout;
  let counters: ParentOomCounters;
  const setPod = (oomKills: number) => writeFile(join(root, POD, "memory.events"), events(oomKills));
  /** What the reporter does at the container's end: its own cgroup first, then the parent's when it is gone. */
  async function atEnd(c: Container, exitCode: number, layout = v2): Promise<OomCheck> {
    const own = await checkOwnCgroup(layout, c.linux?.cgroupsPath ?? "");
    return own.gone ? counters.check(layout, c, exitCode, own) : own.check;
  }

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "exit-reporter-parent-"));
    v2 = { version: 2, mountPoint: root, mountRoot: "/" };
    await mkdir(join(root, POD, "cri-containerd-present.scope"), { recursive: true });
    await writeFile(join(root, POD, "cri-containerd-present.scope/memory.events"), events(1));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));
  beforeEach(async () => {
    counters = new ParentOomCounters();
    await setPod(2);
  });

  it("reads the container's own cgroup first, as before, when it is there", async () => {
    await counters.watch(v2, pod, container("present"), "created");
    await setPod(5);
    expect(await atEnd(container("present"), 137)).toEqual({
      verdict: OomVerdict.OOM_VERDICT_CONFIRMED,
      evidence: "cgroup v2 memory.events: oom_kill 1",
      path: join(root, POD, "cri-containerd-present.scope/memory.events"),
    });
  });

  it("confirms a SIGKILL as an OOM kill when the pod's count rose since the container was created", async () => {
    await counters.watch(v2, pod, container("killed"), "created");
    await setPod(3);
    expect(await atEnd(container("killed"), 137)).toEqual({
      verdict: OomVerdict.OOM_VERDICT_CONFIRMED,
      evidence: `the pod's cgroup ${POD}: cgroup v2 memory.events oom_kill 3, 2 when the container was created (its own cgroup ${POD}/cri-containerd-killed.scope no longer exists); no other container ran in it, as far as the reporter saw`,
      path: join(root, POD, "memory.events"),
    });
  });

  it("names the pod's other containers, any of which the kill may have been of", async () => {
    await counters.watch(v2, pod, container("killed", "app"), "created");
    await counters.watch(v2, pod, container("side", "sidecar"), "created");
    await counters.watch(v2, pod, container("other", "init"), "running");
    await counters.watch(v2, PodSandbox.fromPartial({}), container("elsewhere"), "created");
    await setPod(3);
    const check = await atEnd(container("killed", "app"), 137);
    expect(check.verdict).toBe(OomVerdict.OOM_VERDICT_CONFIRMED);
    expect(check.evidence).toMatch(
      /; the count is of every container in it, and sidecar, init, elsewhere ran in it too: the kill may have been of one of those$/,
    );
    // forgotten at its removal
    counters.forget("side");
    counters.forget("other");
    counters.forget("elsewhere");
    expect((await atEnd(container("killed", "app"), 137)).evidence).toMatch(/; no other container ran in it/);
  });

  it("finds no OOM kill when the pod's count did not rise", async () => {
    await counters.watch(v2, pod, container("sigkill"), "running");
    expect(await atEnd(container("sigkill"), 137)).toEqual({
      verdict: OomVerdict.OOM_VERDICT_NOT_FOUND,
      evidence: `the pod's cgroup ${POD}: cgroup v2 memory.events oom_kill 2, as when the reporter first saw it running (its own cgroup ${POD}/cri-containerd-sigkill.scope no longer exists)`,
      path: join(root, POD, "memory.events"),
    });
  });

  it("does not confirm a rise for a container that did not die by SIGKILL", async () => {
    await counters.watch(v2, pod, container("exit1"), "created");
    await setPod(4);
    const check = await atEnd(container("exit1"), 1);
    expect(check.verdict).toBe(OomVerdict.OOM_VERDICT_UNKNOWN);
    expect(check.evidence).toMatch(
      /^the pod's cgroup .* oom_kill 4, 2 when the container was created \(its own cgroup \S+ no longer exists\); no other .*; but the container did not die by SIGKILL \(exit 137\): the kill may have been of another process under it$/,
    );
  });

  it("cannot tell without a count taken earlier, as before", async () => {
    await setPod(3);
    expect(await atEnd(container("unseen"), 137)).toEqual({
      verdict: OomVerdict.OOM_VERDICT_UNKNOWN,
      evidence: `the container's cgroup ${POD}/cri-containerd-unseen.scope no longer exists`,
      path: join(root, POD, "cri-containerd-unseen.scope/memory.events"),
    });
  });

  it("says so when the parent cannot be read, then or now", async () => {
    const lone = Container.fromPartial({ id: "lone", linux: { cgroupsPath: "/nowhere/lone" } });
    await counters.watch(v2, undefined, lone, "created");
    expect((await atEnd(lone, 137)).evidence).toBe(
      "the container's cgroup /nowhere/lone no longer exists; its parent cgroup /nowhere could not be read when the container was created: it no longer exists",
    );
  });

  it("takes no count where the parent cannot tell: memory.events counting only the cgroup's own", async () => {
    const local = { ...v2, localEvents: "the cgroup2 mount option memory_localevents" };
    await counters.watch(local, pod, container("local"), "created");
    await setPod(3);
    expect(await atEnd(container("local"), 137, local)).toMatchObject({
      verdict: OomVerdict.OOM_VERDICT_UNKNOWN,
      evidence: `the container's cgroup ${POD}/cri-containerd-local.scope no longer exists; memory.events here counts no kill of a cgroup's subtree (the cgroup2 mount option memory_localevents)`,
    });
  });
});

describe("the parent cgroup on cgroup v1", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "exit-reporter-parent-v1-"));
    await mkdir(join(root, "kubepods/burstable/pod1"), { recursive: true });
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("is not read: v1 counts a kill only in the killed process's own cgroup", async () => {
    const v1: CgroupLayout = { version: 1, mountPoint: root, mountRoot: "/" };
    const counters = new ParentOomCounters();
    const c = Container.fromPartial({ id: "c1", linux: { cgroupsPath: "/kubepods/burstable/pod1/c1" } });
    const pod1 = join(root, "kubepods/burstable/pod1/memory.oom_control");
    await writeFile(pod1, "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
    await counters.watch(v1, undefined, c, "created");
    // even a count that rose (which the kernel's v1 does not do for a child's kill) is not taken for one
    await writeFile(pod1, "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n");
    const own = await checkOwnCgroup(v1, "/kubepods/burstable/pod1/c1");
    expect(own.gone).toEqual({ cgroup: "/kubepods/burstable/pod1/c1", how: "no longer exists" });
    expect(await counters.check(v1, c, 137, own)).toEqual({
      verdict: OomVerdict.OOM_VERDICT_UNKNOWN,
      evidence:
        "the container's cgroup /kubepods/burstable/pod1/c1 no longer exists; cgroup v1 counts an OOM kill only in the killed process's own cgroup, not in its pod's",
      path: join(root, "kubepods/burstable/pod1/c1/memory.oom_control"),
    });
  });
});

describe("whether memory.events counts a cgroup's subtree", () => {
  const mountinfo = (options: string) =>
    `35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 ${options}\n`;
  it("does from kernel 5.2, unless cgroup2 is mounted with memory_localevents", () => {
    expect(localEventsOn(mountinfo("rw,nsdelegate,memory_recursiveprot"), "6.18.44-fc-v1272")).toBeUndefined();
    expect(localEventsOn(mountinfo("rw,nsdelegate,memory_localevents"), "6.8.0-45-generic")).toBe(
      "the cgroup2 mount option memory_localevents",
    );
    expect(localEventsOn(mountinfo("rw"), "5.1.21")).toBe("kernel 5.1.21 (before 5.2)");
    expect(localEventsOn(mountinfo("rw"), "4.19.0-27-amd64")).toBe("kernel 4.19.0-27-amd64 (before 5.2)");
  });
});
