/**
 * What a process has used so far, from Linux's /proc: for benches that
 * start programs (plugins) and compare their cost with Go's.
 */
import { readdir, readFile } from "node:fs/promises";

/** On-CPU nanoseconds of all threads of a process so far (schedstat: finer than /proc/PID/stat's ticks). */
export async function cpuNs(pid: number): Promise<number> {
  let sum = 0;
  for (const task of await readdir(`/proc/${pid}/task`)) {
    const stat = await readFile(`/proc/${pid}/task/${task}/schedstat`, "utf8").catch(() => "0");
    sum += Number(stat.split(" ")[0]);
  }
  return sum;
}

/** A memory figure of /proc/PID/status in MiB: VmRSS, or RssAnon (the part that is not file-backed pages, such as the node binary's). */
export async function statusMiB(pid: number, field: "VmRSS" | "RssAnon"): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)?.[1]) / 1024;
}

/** The median of some values (the upper one of an even count). */
export const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
