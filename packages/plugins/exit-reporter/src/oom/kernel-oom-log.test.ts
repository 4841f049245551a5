import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir, uptime } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KernelOomLog } from "./kernel-oom-log.js";

/** Records as this machine's kernel (6.18) wrote them for an OOM kill in a container, in /dev/kmsg's format. */
const RECORDS = [
  "4,3001,6200357318,-;[  pid  ]   uid  tgid total_vm      rss rss_anon rss_file rss_shmem pgtables_bytes swapents oom_score_adj name",
  "6,3002,6200357334,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=c68ca382,mems_allowed=0,oom_memcg=/nri-e2e-rt-65Up83/c68ca382,task_memcg=/nri-e2e-rt-65Up83/c68ca382,task=sh,pid=7171,uid=0",
  "3,3003,6200357351,-;Memory cgroup out of memory: Killed process 7171 (sh) total-vm:56544kB, anon-rss:32000kB, file-rss:1456kB, shmem-rss:0kB, UID:0 pgtables:108kB oom_score_adj:0",
  " SUBSYSTEM=memory",
  // A kill whose summary the kernel rate-limited away: only the pid is known.
  // Its time (microseconds since boot) is a few seconds ago on this machine:
  // a fixed one would lie in the future on a machine booted after it.
  `3,3010,${Math.max(0, Math.floor((uptime() - 5) * 1e6))},-;Memory cgroup out of memory: Killed process 9001 (java) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:1kB oom_score_adj:0`,
];

describe("KernelOomLog", () => {
  let dir: string;
  let log: KernelOomLog;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "exit-reporter-kmsg-"));
    await writeFile(join(dir, "kmsg"), `${RECORDS.join("\n")}\n`);
    log = await KernelOomLog.open(join(dir, "kmsg"));
  });
  afterAll(async () => {
    await log.close();
    await rm(dir, { recursive: true, force: true });
  });

  const always = { startedAt: 1n, finishedAt: BigInt(Date.now() + 60_000) * 1_000_000n };

  it("finds a kill by the container's memory cgroup", async () => {
    expect((await log.find("/nri-e2e-rt-65Up83/c68ca382", 0, always))?.text).toBe(
      "oom-kill of sh (pid 7171) in memory cgroup /nri-e2e-rt-65Up83/c68ca382",
    );
    expect(await log.find("/nri-e2e-rt-65Up83/other", 0, always)).toBeUndefined();
  });

  it("finds a kill by pid only while the container ran (pids are reused)", async () => {
    expect((await log.find(undefined, 9001, always))?.text).toBe(
      "Killed process 9001 (java) by the memory cgroup's OOM killer",
    );
    expect(
      await log.find(undefined, 9001, { startedAt: BigInt(Date.now() + 3_600_000) * 1_000_000n, finishedAt: 0n }),
    ).toBeUndefined();
    expect(await log.find(undefined, 9001, { startedAt: 0n, finishedAt: 0n })).toBeUndefined();
    expect(await log.find(undefined, 4242, always)).toBeUndefined();
  });

  it("skips a line longer than any record, whatever it holds, and reads on after it", async () => {
    const kill = (cgroup: string, pid: number) =>
      `6,4001,6200357334,-;oom-kill:constraint=CONSTRAINT_MEMCG,oom_memcg=${cgroup},task_memcg=${cgroup},task=sh,pid=${pid},uid=0`;
    const path = join(dir, "long-lines");
    // a megabyte on one line, then a record split across the reader's chunks
    await writeFile(
      path,
      `${kill("/hidden", 41)}${" x".repeat(500_000)}\n${"y".repeat(70_000)}\n${kill("/after", 42)}\n`,
    );
    const long = await KernelOomLog.open(path);
    try {
      expect(await long.find("/hidden", 0, always)).toBeUndefined();
      expect((await long.find("/after", 0, always))?.text).toBe("oom-kill of sh (pid 42) in memory cgroup /after");
    } finally {
      await long.close();
    }
  });

  it("reads a configured file that never ends (/dev/zero) a few megabytes at a time, never hanging a check", async () => {
    const endless = await KernelOomLog.open("/dev/zero");
    try {
      expect(await endless.find("/nri-e2e-rt-65Up83/c68ca382", 7171, always)).toBeUndefined();
    } finally {
      await endless.close();
    }
  });
});
