/**
 * Processes as /proc shows them. Exited children of a PID 1 that reaps
 * late (ours on these machines) linger as zombies, and `kill -0` succeeds on
 * a zombie, so "alive" means present and not in state Z.
 */
import { readdirSync, readFileSync } from "node:fs";
import { sleepSync } from "./exec.js";

function stat(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // the command name is in parentheses and may hold spaces: split after it
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

export function alive(pid: number): boolean {
  const fields = stat(pid);
  return fields !== undefined && fields[0] !== "Z" && fields[0] !== "X";
}

/** The process's start time in clock ticks since boot: with the pid, it names one process for good. */
export function startTime(pid: number): string | undefined {
  return stat(pid)?.[19];
}

export function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return [];
  }
}

/** Live processes whose command line mentions `text`. */
export function processesMentioning(text: string): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => pid !== process.pid && alive(pid) && commandLine(pid).some((arg) => arg.includes(text)));
}

/** Sends `signal`; false when the process is already gone. */
export function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

/** Waits (blocking) until the process is gone; true if it went in time. */
export function waitGone(pid: number, timeoutMs: number): boolean {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    sleepSync(10);
  }
  return true;
}

/** SIGTERM, then SIGKILL after `graceMs`; returns once the process is gone. */
export function terminate(pid: number, graceMs = 10_000): void {
  if (!signal(pid, "SIGTERM")) return;
  if (!waitGone(pid, graceMs)) {
    signal(pid, "SIGKILL");
    waitGone(pid, 5_000);
  }
}
