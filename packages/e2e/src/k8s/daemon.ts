/**
 * A long-running process of the cluster (etcd, the API server, a kubelet,
 * containerd): started detached with stdout and stderr in its log file, its
 * pid and start time recorded in `<dir>/pids/` so that a sweep can stop it
 * after a crash, stopped with SIGTERM (SIGKILL after a grace period).
 */
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LogFile } from "../log-file.js";
import { alive, signal, startTime, terminate, waitGone } from "../procs.js";

export interface DaemonOptions {
  /** Where its log (`<name>.log`) and its pid record go. */
  dir: string;
  env?: NodeJS.ProcessEnv;
  /** Run through this command line, e.g. `nsenter -t <pid> -n -m --`, which execs the program under the same pid. */
  prefix?: readonly string[];
}

export class Daemon {
  readonly log: LogFile;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(
    readonly name: string,
    readonly pid: number,
    log: string,
    exited: Daemon["exited"],
    private readonly record: string,
  ) {
    this.log = new LogFile(log);
    this.exited = exited;
  }

  static start(name: string, command: string, args: readonly string[], options: DaemonOptions): Daemon {
    const logPath = join(options.dir, `${name}.log`);
    const fd = openSync(logPath, "a");
    try {
      const [file, ...rest] = [...(options.prefix ?? []), command, ...args];
      const child = spawn(file as string, rest, {
        stdio: ["ignore", fd, fd],
        detached: true,
        env: options.env ?? process.env,
      });
      if (child.pid === undefined) throw new Error(`${name} did not start (${command})`);
      child.on("error", () => {});
      child.unref();
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.on("exit", (code, signal) => resolve({ code, signal })),
      );
      const pids = join(options.dir, "pids");
      mkdirSync(pids, { recursive: true });
      const record = join(pids, String(child.pid));
      writeFileSync(record, startTime(child.pid) ?? "");
      return new Daemon(name, child.pid, logPath, exited, record);
    } finally {
      closeSync(fd);
    }
  }

  get running(): boolean {
    return alive(this.pid);
  }

  /** The last lines of its log, for error messages. */
  tail(lines = 20): string {
    return this.log.lines().slice(-lines).join("\n");
  }

  /** SIGTERM, SIGKILL after `graceMs`; synchronous, for teardown. */
  stop(graceMs = 10_000): void {
    terminate(this.pid, graceMs);
    rmSync(this.record, { force: true });
  }

  /** SIGKILL, as a crash would end it. */
  kill(): void {
    signal(this.pid, "SIGKILL");
    waitGone(this.pid, 5_000);
    rmSync(this.record, { force: true });
  }
}
