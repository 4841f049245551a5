/**
 * OOM kills as the kernel logs them (`/dev/kmsg`), for when the container's
 * cgroup is gone before the reporter can read its counter: containerd 2.4
 * removes it at about the time it sends StopContainer, so reading it races
 * (on our machines it was there, half gone (ENODEV) or gone, run to run).
 * The kernel writes its lines at the kill, before the process is reaped,
 * so the log read at StopContainer always has them:
 *
 *     oom-kill:constraint=CONSTRAINT_MEMCG,...,oom_memcg=/k8s.io/<id>,task_memcg=/k8s.io/<id>,task=sh,pid=7171,uid=0
 *     Memory cgroup out of memory: Killed process 7171 (sh) total-vm:56544kB, ...
 *
 * The first names the killed task's memory cgroup (the kernel rate-limits
 * it under a storm of kills); the second only its pid, which StopContainer
 * carries for the container's main process. Reading needs root (or
 * CAP_SYSLOG) and a /dev/kmsg, which containers lack unless given one.
 */
import { constants, type FileHandle, open } from "node:fs/promises";
import { uptime } from "node:os";
import { BoundedMap } from "../record/bounded-map.js";

export const KMSG = "/dev/kmsg";

/** How many kills are remembered, by cgroup and by pid. */
const REMEMBERED = 4096;
/** How often the log is read while nobody asks, so that the kernel's ring does not drop what matters. */
const READ_EVERY_MS = 1000;
/** The longest record the kernel writes to /dev/kmsg; a longer line is no record, and is skipped. */
const MAX_LINE_BYTES = 8192;
/**
 * How much one read takes at most, so that a configured file that never
 * ends (`/dev/zero`) cannot hold up a check; the rest waits for the next
 * read. The kernel's ring holds at most 32 MiB, and is read every second.
 */
const READ_BUDGET_BYTES = 4 * 1024 * 1024;
const NEWLINE = 0x0a;

const RECORD = /^\d+,\d+,(\d+),[^;]*;(.*)$/;
const SUMMARY = /^oom-kill:.*\boom_memcg=([^,]*),task_memcg=([^,]*),task=([^,]*),pid=(\d+)/;
const KILLED = /^Memory cgroup out of memory: Killed process (\d+) \((.*?)\)/;

export interface KernelOomKill {
  /** The kernel's own words, shortened: `oom-kill of sh (pid 7171) in memory cgroup /k8s.io/<id>`. */
  text: string;
  /** When, in nanoseconds since the epoch (to the second: the log counts from boot). */
  at: bigint;
}

/** Two lines of one kill are logged within this of each other. */
const SAME_KILL_NS = 1_000_000_000n;
/** How far a kill found by pid may lie outside the container's run, for the clocks' sake. */
const PID_MATCH_SLACK_NS = 2_000_000_000n;

export class KernelOomLog {
  private readonly byCgroup = new BoundedMap<string, KernelOomKill>(REMEMBERED);
  private readonly byPid = new BoundedMap<number, KernelOomKill>(REMEMBERED);
  private reading: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly buffer = Buffer.alloc(64 * 1024);
  /** The start of a line a read ended in (a regular file may end a read mid-line). */
  private partial: Buffer[] = [];
  private partialBytes = 0;
  /** The line being read is longer than any record: it is skipped to its end. */
  private skipping = false;

  /** The epoch time of boot, in nanoseconds, as far as the uptime tells it. */
  private readonly bootedAt = BigInt(Date.now() - Math.round(uptime() * 1000)) * 1_000_000n;

  private constructor(private readonly handle: FileHandle) {
    this.timer = setInterval(() => void this.read(), READ_EVERY_MS).unref();
  }

  /**
   * Opens the kernel log and starts reading what it holds (kills from
   * before the reporter started count too; `find` waits for that read).
   * It resolves without waiting for it: the reporter opens the log in
   * Configure, which the runtime gives 2 s, and a full ring is thousands
   * of records, one read each (1-2 s on a busy two-core machine).
   * @throws the open's error (no /dev/kmsg, not permitted)
   */
  static async open(path = KMSG): Promise<KernelOomLog> {
    const log = new KernelOomLog(await open(path, constants.O_RDONLY | constants.O_NONBLOCK));
    void log.read();
    return log;
  }

  /** Reads every record the kernel has written since the last read. */
  read(): Promise<void> {
    this.reading ??= this.drain().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async drain(): Promise<void> {
    for (let budget = READ_BUDGET_BYTES; budget > 0; ) {
      let bytes: number;
      try {
        ({ bytesRead: bytes } = await this.handle.read(this.buffer, 0, this.buffer.length, null));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // EPIPE: the ring overwrote records we had not read; reading goes on after them.
        if (code === "EPIPE") continue;
        return; // EAGAIN: nothing more for now (or the log went away)
      }
      if (bytes === 0) return;
      budget -= bytes;
      this.note(this.buffer.subarray(0, bytes));
    }
  }

  /**
   * Records as /dev/kmsg hands them, one per read:
   * `<prio>,<seq>,<usec>,<flags>[,...];<message>`, then continuation lines
   * that start with a space (skipped). Each byte is looked at once, however
   * long a line: one longer than a record is dropped as it comes.
   */
  private note(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end >= 0; end = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, end);
      start = end + 1;
      if (this.skipping || this.partialBytes + piece.length > MAX_LINE_BYTES) {
        this.endLine();
        continue;
      }
      const line = this.partialBytes === 0 ? piece : Buffer.concat([...this.partial, piece]);
      this.endLine();
      const record = RECORD.exec(line.toString("utf8"));
      if (record) this.noteMessage(this.bootedAt + BigInt(record[1]) * 1000n, record[2]);
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0 || this.skipping) return;
    if (this.partialBytes + rest.length > MAX_LINE_BYTES) {
      this.partial = [];
      this.partialBytes = 0;
      this.skipping = true;
      return;
    }
    // The buffer is read into again: keep a copy.
    this.partial.push(Buffer.from(rest));
    this.partialBytes += rest.length;
  }

  private endLine(): void {
    this.partial = [];
    this.partialBytes = 0;
    this.skipping = false;
  }

  private noteMessage(at: bigint, message: string): void {
    const summary = SUMMARY.exec(message);
    if (summary) {
      const [, , taskMemcg, task, pid] = summary;
      const kill = { text: `oom-kill of ${task} (pid ${pid}) in memory cgroup ${taskMemcg}`, at };
      this.byCgroup.put(taskMemcg, kill);
      this.byPid.put(Number(pid), kill);
      return;
    }
    const killed = KILLED.exec(message);
    if (!killed) return;
    // The summary of the same kill came just before, and says more.
    const earlier = this.byPid.get(Number(killed[1]));
    if (earlier && at - earlier.at < SAME_KILL_NS) return;
    this.byPid.put(Number(killed[1]), {
      text: `Killed process ${killed[1]} (${killed[2]}) by the memory cgroup's OOM killer`,
      at,
    });
  }

  /**
   * The kill logged for the cgroup, or else for the pid while the container
   * ran (a pid is reused; a cgroup path holds the container's id), after
   * reading what is new.
   */
  async find(
    cgroup: string | undefined,
    pid: number,
    ran: { startedAt: bigint; finishedAt: bigint },
  ): Promise<KernelOomKill | undefined> {
    await this.read();
    const inCgroup = cgroup !== undefined ? this.byCgroup.get(cgroup) : undefined;
    if (inCgroup) return inCgroup;
    const byPid = pid > 0 ? this.byPid.get(pid) : undefined;
    if (!byPid || ran.startedAt === 0n) return undefined;
    const end = ran.finishedAt === 0n ? BigInt(Date.now()) * 1_000_000n : ran.finishedAt;
    return byPid.at >= ran.startedAt - PID_MATCH_SLACK_NS && byPid.at <= end + PID_MATCH_SLACK_NS ? byPid : undefined;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.reading;
    await this.handle.close();
  }
}
