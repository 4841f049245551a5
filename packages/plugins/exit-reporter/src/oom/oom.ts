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

/** A counter file read: the count, or why there is none (`gone` when the cgroup is removed or being removed). */
export type CounterRead =
  | { count: number; path: string; file: string }
  | { failure: string; gone: boolean; path: string; file: string };

/**
 * The `oom_kill` count of the cgroup `cgroup` (a path inside the
 * hierarchy, already resolved to `directory` on disk); never throws.
 */
export async function readOomKills(
  layout: CgroupLayout,
  cgroup: string,
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
    if (code === "ENOENT") return { failure: `the cgroup ${cgroup} no longer exists`, gone: true, path, file };
    // the kernel answers ENODEV for the files of a cgroup being removed (runc removes it as the container ends)
    if (code === "ENODEV") return { failure: `the cgroup ${cgroup} was being removed`, gone: true, path, file };
    return { failure: `cannot read ${path}: ${(error as Error).message}`, gone: false, path, file };
  }
  const count = oomKillCount(text);
  if (count === undefined) {
    const failure = `cgroup v${layout.version} ${file} has no oom_kill counter (kernels before 4.13 have none)`;
    return { failure, gone: false, path, file };
  }
  return { count, path, file };
}

/** What the container's memory cgroup says about OOM kills, and whether it is gone; never throws. */
export async function checkOwnCgroup(
  layout: CgroupLayout | undefined,
  cgroupsPath: string,
  signal?: AbortSignal,
): Promise<{ check: OomCheck; gone: boolean }> {
  if (!layout)
    return { check: unknown("no cgroup memory controller is mounted where the reporter can see it"), gone: false };
  const cgroup = cgroupDirectory(cgroupsPath);
  if (!cgroup) return { check: unknown("the runtime sent no cgroup path"), gone: false };
  const directory = cgroupPathOnDisk(layout, cgroup);
  if (!directory) {
    const why = `the cgroup ${cgroup} lies outside the reporter's view of cgroups (${layout.mountPoint})`;
    return { check: unknown(why), gone: false };
  }
  const read = await readOomKills(layout, cgroup, directory, signal);
  if ("failure" in read) {
    const failure = read.gone ? read.failure.replace(/^the cgroup/, "the container's cgroup") : read.failure;
    return { check: unknown(failure, read.path), gone: read.gone };
  }
  return {
    check: {
      verdict: read.count > 0 ? OomVerdict.OOM_VERDICT_CONFIRMED : OomVerdict.OOM_VERDICT_NOT_FOUND,
      evidence: `cgroup v${layout.version} ${read.file}: oom_kill ${read.count}`,
      path: read.path,
    },
    gone: false,
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
