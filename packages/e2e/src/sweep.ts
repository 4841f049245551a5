/**
 * Teardown of a runtime directory, live or left behind by a crashed run:
 * one synchronous procedure, so that it also works from an exit handler.
 *
 * 1. pods: with containerd up, `crictl stopp` and `rmp` every pod (this
 *    removes its containers, mounts and cgroups). Leftovers without a
 *    containerd (a shim still there, a mount below the base) mean a run died
 *    with pods: containerd is started again on the same config, which finds
 *    them, and they are removed the same way;
 * 2. external plugins, by the pids recorded in `<base>/pids`;
 * 3. containerd (SIGTERM; it exits in milliseconds);
 * 4. what still mentions the base on its command line (shims), SIGKILL;
 *    mounts below the base, deepest first; the runtime's cgroup parent in
 *    every hierarchy;
 * 5. the directory, once nothing is mounted below it, its record last.
 *
 * `<base>/run.json` holds what this needs, and marks the run live: its
 * `owner` names the process that created the directory (pid and start
 * time, so a reused pid does not count), and a sweep of abandoned runs
 * passes over every directory whose owner still runs. The record is
 * written (atomically) right after the directory is made and removed last
 * when it goes, so a live run's directory is without one only while it is
 * being made or is already empty; the sweep leaves such a directory alone
 * for a minute, and takes one that vanishes while it looks as gone.
 */
import { spawn } from "node:child_process";
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { runtimeLayout } from "./config.js";
import { runSync, sleepSync } from "./exec.js";
import { scratchRoot } from "./paths.js";
import { alive, commandLine, processesMentioning, signal, startTime, terminate, waitGone } from "./procs.js";

export interface RunRecord {
  owner: { pid: number; start: string };
  /** The directory of containerd, ctr and the shim this runtime runs. */
  containerdBin: string;
  crictl: string;
  /** The pods' `cgroup_parent`, e.g. `/nri-e2e-abc123`. */
  cgroupParent: string;
}

const RECORD = "run.json";

/** Each runtime's directory below the scratch root is `rt-XXXXXX`; nothing else there is the sweep's. */
export const RUNTIME_PREFIX = "rt-";

/** Writes the record whole (a temporary file renamed over it): a sweep reads all of it or none. */
export function writeRunRecord(base: string, record: RunRecord): void {
  writeFileSync(join(base, `${RECORD}.new`), JSON.stringify(record, null, 2));
  renameSync(join(base, `${RECORD}.new`), join(base, RECORD));
}

function readRunRecord(base: string): RunRecord | undefined {
  try {
    return JSON.parse(readFileSync(join(base, RECORD), "utf8")) as RunRecord;
  } catch {
    return undefined;
  }
}

/** A pid recorded with its start time: still the same process? */
function recordedAlive(pid: number, start: string | undefined): boolean {
  return alive(pid) && (start === undefined || start === "" || startTime(pid) === start);
}

function mountsBelow(base: string): string[] {
  return readFileSync("/proc/mounts", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[1]?.replace(/\\040/g, " "))
    .filter((point): point is string => point?.startsWith(`${base}/`))
    .sort((a, b) => b.length - a.length);
}

/** The runtime's containerd, if it runs (its pid file, and its command line naming the runtime's config). */
function containerdPid(base: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(base, "containerd.pid"), "utf8"));
    return alive(pid) && commandLine(pid).includes(runtimeLayout(base).config) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Starts containerd on the runtime's config again and waits for CRI (synchronously). */
function restartContainerd(base: string, record: RunRecord): number | undefined {
  const layout = runtimeLayout(base);
  const fd = openSync(join(base, "containerd.log"), "a");
  const child = spawn(join(record.containerdBin, "containerd"), ["-c", layout.config], {
    stdio: ["ignore", fd, fd],
    detached: true,
    env: { ...process.env, PATH: `${record.containerdBin}:${process.env.PATH ?? "/usr/bin:/bin"}` },
  });
  closeSync(fd);
  child.unref();
  if (child.pid === undefined) return undefined;
  writeFileSync(join(base, "containerd.pid"), String(child.pid));
  for (let i = 0; i < 200 && alive(child.pid); i++) {
    try {
      runSync(record.crictl, ["-c", layout.crictlConfig, "version"], { timeoutMs: 5_000 });
      return child.pid;
    } catch {
      sleepSync(50);
    }
  }
  return undefined;
}

function removePods(base: string, record: RunRecord): void {
  const crictl = (...args: string[]) =>
    runSync(record.crictl, ["-c", runtimeLayout(base).crictlConfig, ...args], { timeoutMs: 60_000 }).trim();
  for (const id of crictl("pods", "-q").split("\n").filter(Boolean)) {
    try {
      crictl("stopp", id);
      crictl("rmp", "-f", id);
    } catch (error) {
      console.warn(`e2e: could not remove pod ${id}: ${(error as Error).message}`);
    }
  }
}

function stopRecordedPlugins(base: string): void {
  const dir = join(base, "pids");
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir)) {
    const pid = Number(entry);
    if (recordedAlive(pid, readFileSync(join(dir, entry), "utf8"))) terminate(pid, 5_000);
  }
}

function removeCgroups(parent: string): void {
  if (!parent) return;
  const remove = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true }))
      if (entry.isDirectory()) remove(join(dir, entry.name));
    try {
      rmdirSync(dir);
    } catch (error) {
      console.warn(`e2e: could not remove cgroup ${dir}: ${(error as Error).message}`);
    }
  };
  for (const hierarchy of readdirSync("/sys/fs/cgroup")) remove(join("/sys/fs/cgroup", hierarchy, parent));
}

/** Tears down everything of the runtime at `base` and removes the directory. */
export function sweepRuntime(base: string): void {
  const record = readRunRecord(base);
  if (record) {
    let pid = containerdPid(base);
    const leftovers = () => processesMentioning(base).length > 0 || mountsBelow(base).length > 0;
    if (pid === undefined && leftovers() && existsSync(record.crictl)) pid = restartContainerd(base, record);
    if (pid !== undefined) {
      try {
        removePods(base, record);
      } catch (error) {
        console.warn(`e2e: could not list the pods of ${base}: ${(error as Error).message}`);
      }
    }
    stopRecordedPlugins(base);
    if (pid !== undefined) terminate(pid);
  }
  for (const pid of processesMentioning(base)) {
    signal(pid, "SIGKILL");
    waitGone(pid, 5_000);
  }
  for (const point of mountsBelow(base)) {
    try {
      runSync("umount", [point]);
    } catch {
      runSync("umount", ["-l", point]);
    }
  }
  if (record) removeCgroups(record.cgroupParent);
  if (mountsBelow(base).length === 0) removeDirectory(base);
  else console.warn(`e2e: left ${base} in place: still mounted below it: ${mountsBelow(base).join(", ")}`);
}

/** Removes the runtime's directory with its record last: the run stays marked live while anything of it is left. */
function removeDirectory(base: string): void {
  if (!existsSync(base)) return; // swept already
  for (const entry of readdirSync(base)) {
    if (entry !== RECORD) rmSync(join(base, entry), { recursive: true, force: true });
  }
  rmSync(join(base, RECORD), { force: true });
  rmdirSync(base);
}

/** How long a directory without a record is taken to be one being made (or emptied) by a live run. */
const UNRECORDED_GRACE_MS = 60_000;

/**
 * Whether the run of the directory at `base` is over: its owner is gone,
 * or it has had no record for longer than a live run ever goes without.
 */
function abandoned(base: string): boolean {
  const record = readRunRecord(base);
  if (record) return !recordedAlive(record.owner.pid, record.owner.start);
  return Date.now() - statSync(base).mtimeMs >= UNRECORDED_GRACE_MS;
}

/**
 * Sweeps every runtime directory below `root` whose run is over (a crashed
 * or killed run), and resolves to those it swept. Runs of other test files
 * tear their own directories down meanwhile: one that vanishes while the
 * sweep looks at it is passed over.
 */
export function sweepAbandoned(root = scratchRoot): string[] {
  if (!existsSync(root)) return [];
  const swept: string[] = [];
  for (const entry of readdirSync(root)) {
    if (!entry.startsWith(RUNTIME_PREFIX)) continue;
    const base = join(root, entry);
    try {
      if (!abandoned(base)) continue;
      sweepRuntime(base);
      swept.push(base);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT" && !existsSync(base)) continue;
      throw error;
    }
  }
  return swept;
}
