import { execFileSync, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, rmdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CgroupLayout, findMemoryCgroup, memoryCgroupUnder } from "./cgroups.js";
import { OomVerdict } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import { KernelOomLog } from "./kernel-oom-log.js";
import { checkOom, oomKillCount, readOomKills } from "./oom.js";

describe("the kernel's counter files", () => {
  it("reads oom_kill from cgroup v1 memory.oom_control and v2 memory.events", () => {
    expect(oomKillCount("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n")).toBe(2);
    expect(oomKillCount("low 0\nhigh 0\nmax 5\noom 1\noom_kill 1\noom_group_kill 0\n")).toBe(1);
    expect(oomKillCount("oom_kill_disable 0\nunder_oom 0\n")).toBeUndefined();
  });
});

describe("checkOom on cgroup trees laid out as the kernel does", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "exit-reporter-cgroups-"));
    // v1: one directory per controller; v2: one tree.
    await mkdir(join(root, "v1/memory/k8s.io/killed"), { recursive: true });
    await writeFile(
      join(root, "v1/memory/k8s.io/killed/memory.oom_control"),
      "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n",
    );
    await mkdir(join(root, "v1/memory/k8s.io/old-kernel"), { recursive: true });
    await writeFile(join(root, "v1/memory/k8s.io/old-kernel/memory.oom_control"), "oom_kill_disable 0\nunder_oom 0\n");
    await mkdir(join(root, "v2/kubepods.slice/kubepods-pod1.slice/cri-containerd-ok.scope"), { recursive: true });
    await writeFile(
      join(root, "v2/kubepods.slice/kubepods-pod1.slice/cri-containerd-ok.scope/memory.events"),
      "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n",
    );
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("finds the hierarchy under a configured root: v1 with a memory directory, else v2", async () => {
    expect(await memoryCgroupUnder(join(root, "v1"))).toEqual({
      version: 1,
      mountPoint: join(root, "v1/memory"),
      mountRoot: "/",
    });
    expect(await memoryCgroupUnder(join(root, "v2"))).toEqual({
      version: 2,
      mountPoint: join(root, "v2"),
      mountRoot: "/",
    });
  });

  it("confirms an OOM kill on v1 and says how it knows", async () => {
    const v1 = await memoryCgroupUnder(join(root, "v1"));
    expect(await checkOom(v1, "/k8s.io/killed")).toEqual({
      verdict: OomVerdict.OOM_VERDICT_CONFIRMED,
      evidence: "cgroup v1 memory.oom_control: oom_kill 1",
      path: join(root, "v1/memory/k8s.io/killed/memory.oom_control"),
    });
    expect(await checkOom(v1, "/k8s.io/old-kernel")).toMatchObject({
      verdict: OomVerdict.OOM_VERDICT_UNKNOWN,
      evidence: "cgroup v1 memory.oom_control has no oom_kill counter (kernels before 4.13 have none)",
    });
  });

  it("finds no OOM kill on v2, through a systemd cgroup path", async () => {
    const v2 = await memoryCgroupUnder(join(root, "v2"));
    expect(await checkOom(v2, "kubepods-pod1.slice:cri-containerd:ok")).toEqual({
      verdict: OomVerdict.OOM_VERDICT_NOT_FOUND,
      evidence: "cgroup v2 memory.events: oom_kill 0",
      path: join(root, "v2/kubepods.slice/kubepods-pod1.slice/cri-containerd-ok.scope/memory.events"),
    });
  });

  it("says why it cannot tell", async () => {
    const v1 = await memoryCgroupUnder(join(root, "v1"));
    expect(await checkOom(v1, "/k8s.io/removed")).toMatchObject({
      verdict: OomVerdict.OOM_VERDICT_UNKNOWN,
      evidence: "the container's cgroup /k8s.io/removed no longer exists",
    });
    expect((await checkOom(v1, "")).evidence).toBe("the runtime sent no cgroup path");
    expect((await checkOom(undefined, "/k8s.io/x")).evidence).toBe(
      "no cgroup memory controller is mounted where the reporter can see it",
    );
    const namespaced: CgroupLayout = { version: 2, mountPoint: "/sys/fs/cgroup", mountRoot: "/kubepods" };
    expect((await checkOom(namespaced, "/k8s.io/x")).evidence).toBe(
      "the cgroup /k8s.io/x lies outside the reporter's view of cgroups (/sys/fs/cgroup)",
    );
  });

  it("reads nothing outside the hierarchy, whatever '..' a cgroup path holds", async () => {
    // A file of someone's choice, beside the hierarchy, that would confirm a kill.
    await mkdir(join(root, "elsewhere"), { recursive: true });
    await writeFile(join(root, "elsewhere/memory.events"), "oom_kill 99\n");
    const v2 = await memoryCgroupUnder(join(root, "v2"));
    for (const path of [
      "/kubepods/../../elsewhere",
      "/../elsewhere",
      "kubepods.slice:cri-containerd:../../../../elsewhere",
    ]) {
      expect(await checkOom(v2, path)).toMatchObject({
        verdict: OomVerdict.OOM_VERDICT_UNKNOWN,
        evidence: expect.stringContaining("lies outside the reporter's view of cgroups"),
      });
    }
    // '..' that stays inside is only a path
    expect((await checkOom(v2, "/kubepods.slice/x/../kubepods-pod1.slice/cri-containerd-ok.scope")).evidence).toBe(
      "cgroup v2 memory.events: oom_kill 0",
    );
  });

  it("reads only a regular file, and never waits for a named pipe", async () => {
    const dir = join(root, "v2/k8s.io/piped");
    await mkdir(dir, { recursive: true });
    execFileSync("mkfifo", [join(dir, "memory.events")]);
    const v2 = await memoryCgroupUnder(join(root, "v2"));
    expect(await checkOom(v2, "/k8s.io/piped")).toEqual({
      verdict: OomVerdict.OOM_VERDICT_UNKNOWN,
      evidence: `cannot read ${join(dir, "memory.events")}: not a regular file: a named pipe`,
      path: join(dir, "memory.events"),
    });
  });
});

/** Runs a shell script in `cgroup` (a directory under the memory hierarchy); resolves with its exit code. */
function runIn(cgroup: string, script: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", `echo $$ > ${cgroup}/cgroup.procs && ${script}`], { stdio: "ignore" });
    child.once("error", reject);
    child.once("exit", (code) => resolve(code));
  });
}

describe("a real OOM kill in a memory cgroup of this machine", async () => {
  const layout = await findMemoryCgroup();
  const name = `nri-ts-exit-reporter-oom-${process.pid}`;
  const dir = layout && join(layout.mountPoint, name);
  const why =
    process.getuid?.() !== 0
      ? "needs root to make a cgroup"
      : !layout
        ? "no cgroup memory controller is mounted"
        : undefined;
  if (why) console.log(`skipped: a real OOM kill ${why}`);

  it.skipIf(why !== undefined)(`is confirmed from the kernel's counter (cgroup v${layout?.version})`, async () => {
    await mkdir(dir!);
    try {
      const limit = String(16 * 1024 * 1024);
      // Swap, where there is any, must not let it escape the limit.
      const noSwap = (file: string, value: string) => writeFile(join(dir!, file), value).catch(() => {});
      if (layout!.version === 1) {
        await writeFile(join(dir!, "memory.limit_in_bytes"), limit);
        await noSwap("memory.memsw.limit_in_bytes", limit);
      } else {
        await writeFile(join(dir!, "memory.max"), limit);
        await noSwap("memory.swap.max", "0");
      }
      const file = layout!.version === 1 ? "memory.oom_control" : "memory.events";
      expect(await checkOom(layout, `/${name}`)).toMatchObject({
        verdict: OomVerdict.OOM_VERDICT_NOT_FOUND,
        evidence: `cgroup v${layout!.version} ${file}: oom_kill 0`,
      });
      // tail keeps a line without newline whole: 200 MB of zeros do not fit in 16 MiB.
      expect(await runIn(dir!, "head -c 200000000 /dev/zero | tail > /dev/null")).toBe(137);
      expect(await checkOom(layout, `/${name}`)).toEqual({
        verdict: OomVerdict.OOM_VERDICT_CONFIRMED,
        evidence: `cgroup v${layout!.version} ${file}: oom_kill 1`,
        path: join(dir!, file),
      });
    } finally {
      await rmdir(dir!);
    }
    expect((await checkOom(layout, `/${name}`)).evidence).toBe(`the container's cgroup /${name} no longer exists`);
    // The kernel logged the kill too, and its log outlives the cgroup.
    const kernelLog = await KernelOomLog.open();
    try {
      const kill = await kernelLog.find(`/${name}`, 0, { startedAt: 0n, finishedAt: 0n });
      expect(kill?.text).toMatch(new RegExp(`^oom-kill of (tail|head|sh) \\(pid \\d+\\) in memory cgroup /${name}$`));
    } finally {
      await kernelLog.close();
    }
  });

  // What the reporter relies on when a container's own cgroup is gone (parent-counter.ts): on v2 the kernel counts a
  // child's kill in its parent's memory.events too (kernel 5.2+, unless memory_localevents); on v1 only in the child's.
  it.skipIf(why !== undefined)(
    `counts a child cgroup's kill in the parent's counter on v2, and not on v1 (cgroup v${layout?.version})`,
    async () => {
      const parent = join(layout!.mountPoint, `${name}-parent`);
      const child = join(parent, "child");
      const parentKills = async () => {
        const read = await readOomKills(layout!, `the cgroup /${name}-parent`, parent);
        return "count" in read ? read.count : read.failure;
      };
      await mkdir(parent);
      try {
        if (layout!.version === 2) await writeFile(join(parent, "cgroup.subtree_control"), "+memory");
        await mkdir(child);
        const limit = String(16 * 1024 * 1024);
        if (layout!.version === 1) {
          await writeFile(join(child, "memory.limit_in_bytes"), limit);
          await writeFile(join(child, "memory.memsw.limit_in_bytes"), limit).catch(() => {});
        } else {
          await writeFile(join(child, "memory.max"), limit);
          await writeFile(join(child, "memory.swap.max"), "0").catch(() => {});
        }
        expect(await parentKills()).toBe(0);
        expect(await runIn(child, "head -c 200000000 /dev/zero | tail > /dev/null")).toBe(137);
        await rmdir(child);
        expect(await parentKills()).toBe(layout!.version === 2 && !layout!.localEvents ? 1 : 0);
      } finally {
        await rmdir(child).catch(() => {});
        await rmdir(parent);
      }
    },
    120_000,
  );
});
