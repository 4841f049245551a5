/**
 * Tells whether the out-of-memory killer ended a container, from its memory
 * cgroup's own counter: `oom_kill` in `memory.oom_control` on cgroup v1
 * (kernel 4.13 and later), in `memory.events` on v2. Runtimes that send no
 * status reason (containerd 2.3+, CRI-O 1.36+) leave this to the plugin.
 * containerd still has the cgroup when it sends StopContainer, and removes
 * it before RemoveContainer.
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

/** What the container's memory cgroup says about OOM kills; never throws. */
export async function checkOom(
  layout: CgroupLayout | undefined,
  cgroupsPath: string,
  signal?: AbortSignal,
): Promise<OomCheck> {
  if (!layout) return unknown("no cgroup memory controller is mounted where the reporter can see it");
  const cgroup = cgroupDirectory(cgroupsPath);
  if (!cgroup) return unknown("the runtime sent no cgroup path");
  const directory = cgroupPathOnDisk(layout, cgroup);
  if (!directory)
    return unknown(`the cgroup ${cgroup} lies outside the reporter's view of cgroups (${layout.mountPoint})`);
  const file = COUNTER_FILE[layout.version];
  const path = join(directory, file);
  let text: string;
  try {
    // Never blocks (a named pipe there would hang the runtime's request), reads only a regular file.
    text = (await readRegularFile(path, { maxBytes: MAX_COUNTER_FILE_BYTES, signal })).toString("utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return unknown(`the container's cgroup ${cgroup} no longer exists`, path);
    return unknown(`cannot read ${path}: ${(error as Error).message}`, path);
  }
  const count = oomKillCount(text);
  if (count === undefined) {
    return unknown(`cgroup v${layout.version} ${file} has no oom_kill counter (kernels before 4.13 have none)`, path);
  }
  return {
    verdict: count > 0 ? OomVerdict.OOM_VERDICT_CONFIRMED : OomVerdict.OOM_VERDICT_NOT_FOUND,
    evidence: `cgroup v${layout.version} ${file}: oom_kill ${count}`,
    path,
  };
}
