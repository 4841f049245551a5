/**
 * The kernel log's backlog is read behind Configure, not in it: the
 * runtime gives Configure 2 s, and reading a full ring (thousands of
 * records, one read each) took 1-2 s on a busy two-core machine, enough
 * for containerd to drop the reporter before it ever registered.
 *
 * The file's reads wait at a gate the test opens, so that "open did not
 * wait for them" is seen without timing anything.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";

const gate = vi.hoisted(() => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
});

vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs/promises")>();
  return {
    ...real,
    open: async (...args: Parameters<typeof real.open>) => {
      const handle = await real.open(...args);
      const read = handle.read.bind(handle) as (...readArgs: unknown[]) => ReturnType<typeof handle.read>;
      return Object.assign(handle, {
        read: async (...readArgs: unknown[]) => {
          await gate.opened;
          return read(...readArgs);
        },
      });
    },
  };
});

const { KernelOomLog } = await import("./kernel-oom-log.js");

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "exit-reporter-kmsg-backlog-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

it("opens without waiting for the backlog, and finds a kill from it once asked", async () => {
  const path = join(dir, "kmsg");
  await writeFile(
    path,
    "6,1,1000,-;oom-kill:constraint=CONSTRAINT_MEMCG,oom_memcg=/k8s.io/abc,task_memcg=/k8s.io/abc,task=sh,pid=7171,uid=0\n",
  );
  const log = await KernelOomLog.open(path); // resolves with every read still held at the gate
  const always = { startedAt: 1n, finishedAt: BigInt(Date.now() + 60_000) * 1_000_000n };
  const found = log.find("/k8s.io/abc", 0, always);
  gate.open();
  expect((await found)?.text).toBe("oom-kill of sh (pid 7171) in memory cgroup /k8s.io/abc");
  await log.close();
});
