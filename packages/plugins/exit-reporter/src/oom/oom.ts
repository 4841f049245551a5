/**
 * Tells whether the out-of-memory killer ended a container, from its memory
 * cgroup's own counter: `oom_kill` in `memory.oom_control` on cgroup v1
 * (kernel 4.13 and later), in `memory.events` on v2. Runtimes that send no
 * status reason (containerd 2.3+, CRI-O 1.36+) leave this to the plugin.
 * runc removes the cgroup as the container ends, so at StopContainer it may
 * be there, being removed (the kernel answers ENODEV) or gone: then its
 * parent's count can tell, on v2 (parent-counter.ts).
 */
import { join } from "node:path";
import { readRegularFile } from "@nri-ts/stub";
import { type CgroupLayout, cgroupDirectory, cgroupPathOnDisk } from "./cgroups.js";
import { type OomCheck, OomVerdict } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";

const COUNTER_FILE = { 1: "memory.oom_control", 2: "memory.events" } as const;
/** The counter files hold a few lines; anything longer is not one. */
const MAX_COUNTER_FILE_BYTES = 64 * 1024;

function unknown(evidence: string, path = ""): OomCheck {
  return { verdict: OomVerdict.OOM_VERDICT_UNKNOWN, evidence, path };
}

/** The `oom_kill` count in the text of memory.oom_control or memory.events. */
export function oomKillCount(text: string): number | undefined {
  const match = /^oom_kill (\d+)$/m.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** How a cgroup was gone when its counter was read: runc removes it as the container ends. */
export type CgroupGone = "no longer exists" | "was being removed";

/** A counter file read: the count, or why there is none (`gone` when the cgroup is removed or being removed). */
export type CounterRead =
  | { count: number; path: string; file: string }
  | { failure: string; gone?: CgroupGone; path: string; file: string };

/**
 * The `oom_kill` count of a cgroup, on disk in `directory`; never throws.
 * @param subject the cgroup as the failure names it: "the container's cgroup /…", "the pod's cgroup /…"
 */
export async function readOomKills(
  layout: CgroupLayout,
  subject: string,
  directory: string,
  signal?: AbortSignal,
): Promise<CounterRead> {
  const file = COUNTER_FILE[layout.version];
  const path = join(directory, file);
  let text: string;
  try {
    // Never blocks (a named pipe there would hang the runtime's request), reads only a regular file.
    text = (await readRegularFile(path, { maxBytes: MAX_COUNTER_FILE_BYTES, signal })).toString("utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // the kernel answers ENODEV for the files of a cgroup being removed
    const gone = code === "ENOENT" ? "no longer exists" : code === "ENODEV" ? "was being removed" : undefined;
    if (gone) return { failure: `${subject} ${gone}`, gone, path, file };
    return { failure: `cannot read ${path}: ${(error as Error).message}`, path, file };
  }
  const count = oomKillCount(text);
  if (count === undefined) {
    const failure = `cgroup v${layout.version} ${file} has no oom_kill counter (kernels before 4.13 have none)`;
    return { failure, path, file };
  }
  return { count, path, file };
}

/** What the container's own memory cgroup said, and, when it was gone, which cgroup and how. */
export interface OwnCgroupCheck {
  check: OomCheck;
  gone?: { cgroup: string; how: CgroupGone };
}

/** What the container's memory cgroup says about OOM kills, and whether it is gone; never throws. */
export async function checkOwnCgroup(
  layout: CgroupLayout | undefined,
  cgroupsPath: string,
  signal?: AbortSignal,
): Promise<OwnCgroupCheck> {
  if (!layout) return { check: unknown("no cgroup memory controller is mounted where the reporter can see it") };
  const cgroup = cgroupDirectory(cgroupsPath);
  if (!cgroup) return { check: unknown("the runtime sent no cgroup path") };
  const directory = cgroupPathOnDisk(layout, cgroup);
  if (!directory)
    return {
      check: unknown(`the cgroup ${cgroup} lies outside the reporter's view of cgroups (${layout.mountPoint})`),
    };
  const read = await readOomKills(layout, `the container's cgroup ${cgroup}`, directory, signal);
  if ("failure" in read)
    return { check: unknown(read.failure, read.path), gone: read.gone && { cgroup, how: read.gone } };
  return {
    check: {
      verdict: read.count > 0 ? OomVerdict.OOM_VERDICT_CONFIRMED : OomVerdict.OOM_VERDICT_NOT_FOUND,
      evidence: `cgroup v${layout.version} ${read.file}: oom_kill ${read.count}`,
      path: read.path,
    },
  };
}

/** What the container's memory cgroup says about OOM kills; never throws. */
export async function checkOom(
  layout: CgroupLayout | undefined,
  cgroupsPath: string,
  signal?: AbortSignal,
): Promise<OomCheck> {
  return (await checkOwnCgroup(layout, cgroupsPath, signal)).check;
}
