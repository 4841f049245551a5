/**
 * One containerd process of a runtime: started with the runtime's config,
 * its stderr in `<base>/containerd.log`, its pid in `<base>/containerd.pid`
 * (for the sweep of a crashed run), stopped with SIGTERM.
 */
import { spawn } from "node:child_process";
import { closeSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RuntimeLayout } from "./config.js";
import { run, sleep } from "./exec.js";
import { LogFile, type LogEntry, parseLogrus, type WaitOptions } from "./log-file.js";
import { alive, terminate } from "./procs.js";

export class Containerd {
  readonly log: LogFile;
  pid: number | undefined;

  /**
   * @param binDir holds containerd, ctr and containerd-shim-runc-v2; it goes
   *   first on containerd's PATH, where it looks for the shim
   */
  constructor(
    readonly binDir: string,
    readonly layout: RuntimeLayout,
    readonly crictl: string,
  ) {
    this.log = new LogFile(join(layout.base, "containerd.log"));
  }

  /** Starts containerd and resolves once CRI answers (`crictl version`). */
  async start(): Promise<void> {
    const fd = openSync(this.log.path, "a");
    try {
      const child = spawn(join(this.binDir, "containerd"), ["-c", this.layout.config], {
        stdio: ["ignore", fd, fd],
        detached: true,
        env: { ...process.env, PATH: `${this.binDir}:${process.env.PATH ?? "/usr/bin:/bin"}` },
      });
      if (child.pid === undefined) throw new Error("containerd did not start");
      child.on("error", () => {});
      this.pid = child.pid;
      writeFileSync(join(this.layout.base, "containerd.pid"), String(child.pid));
    } finally {
      closeSync(fd);
    }
    await this.waitForCri();
  }

  private async waitForCri(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        await run(this.crictl, ["-c", this.layout.crictlConfig, "version"], { timeoutMs: 5_000 });
        return;
      } catch (error) {
        if (this.pid === undefined || !alive(this.pid)) {
          throw new Error(`containerd exited during startup; its log:\n${this.log.lines().slice(-20).join("\n")}`);
        }
        if (Date.now() > deadline) throw error;
        await sleep(25);
      }
    }
  }

  /** SIGTERM (SIGKILL after 10 s) and wait: synchronous, for teardown. */
  stop(): void {
    if (this.pid !== undefined) terminate(this.pid);
    this.pid = undefined;
  }

  /** Waits for a log entry after `from` (a {@link LogFile.mark}) that `match` accepts. */
  waitForEntry<T>(
    what: string,
    match: (entry: LogEntry) => T | undefined | false,
    options: WaitOptions = {},
  ): Promise<T> {
    return this.log.waitFor(
      what,
      (line) => {
        const entry = parseLogrus(line);
        return entry && match(entry);
      },
      options,
    );
  }
}
