/**
 * A hostile peer that sends without ever reading, and a way to measure what
 * it costs the process it floods: that process runs as a child, so that its
 * resident set size is its own.
 */
import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import type { Duplex, Readable, Writable } from "node:stream";
import { FrameDecoder } from "../frame-decoder.js";
import { MessageType } from "../frame.js";

/**
 * Requests written to `connection` while `trunk` (the socket it runs over,
 * or the connection itself) is not read; the answers are counted once it is.
 */
export class Flood {
  private readonly connection: Writable;
  private readonly trunk: Readable;
  private readonly next: () => Buffer;
  private sent = 0;
  private answered = 0;

  /** `next` makes the next request frame; Response frames arriving on `connection` from now on count as answers. */
  constructor(connection: Duplex, trunk: Readable, next: () => Buffer) {
    this.connection = connection;
    this.trunk = trunk;
    this.next = next;
    const decoder = new FrameDecoder({
      frame: (_streamId, type) => {
        if (type === MessageType.Response) this.answered++;
      },
      oversized: () => {},
    });
    connection.on("data", (chunk: Buffer) => decoder.push(chunk));
  }

  /**
   * Stops reading, then writes requests, honouring back-pressure, until
   * `limit` bytes are written or nothing more is taken for `stallMs` (the
   * other side stopped reading too). Resolves to the bytes written.
   */
  async send(limit: number, stallMs = 1000): Promise<number> {
    this.trunk.pause();
    let written = 0;
    while (written < limit) {
      let more = true;
      while (more && written < limit) {
        const frame = this.next();
        this.sent++;
        written += frame.length;
        more = this.connection.write(frame);
      }
      if (more || !(await drained(this.connection, stallMs))) break;
    }
    return written;
  }

  /** Reads again; resolves once every request sent has its answer. */
  async recover(): Promise<void> {
    this.trunk.resume();
    while (this.answered < this.sent) await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** What a flood cost the process it went to. */
export interface FloodCost {
  /** Bytes written before the other side stopped reading (or the limit). */
  written: number;
  /** The child's anonymous resident memory (RssAnon) before the flood and while it is held up. */
  rssBefore: number;
  rssAfter: number;
}

/**
 * Floods `child` once to warm up (so that what is measured is what a flood
 * holds, not what a first one compiles) and lets it answer; then measures
 * its resident set before a second flood and while that one is held up.
 * The second flood is still unread when this resolves: `recover()` it.
 */
export async function floodCost(flood: Flood, child: MeasuredChild, limit: number): Promise<FloodCost> {
  await flood.send(limit);
  await flood.recover();
  const rssBefore = await child.rss();
  const written = await flood.send(limit);
  return { written, rssBefore, rssAfter: await child.rss() };
}

/** A TypeScript program run as a child with an IPC channel, whose memory the test can ask for. */
export class MeasuredChild {
  readonly process: ChildProcess;

  private constructor(child: ChildProcess) {
    this.process = child;
  }

  /**
   * Starts `script` with `args`; resolves once it sends its first message
   * (e.g. that it listens). Its garbage collector is made single-threaded
   * and its young generation small, so that its resident set follows what
   * it holds rather than how its heap was last sized.
   */
  static async start(script: string, args: string[]): Promise<MeasuredChild> {
    const child = fork(script, args, {
      execArgv: [
        "--expose-gc",
        "--single-threaded-gc",
        "--max-semi-space-size=1",
        "--conditions=@nri-ts/source",
        "--import",
        import.meta.resolve("tsx"),
      ],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    await once(child, "message");
    return new MeasuredChild(child);
  }

  /** Its anonymous resident memory (RssAnon) in bytes, after full garbage collections. */
  async rss(): Promise<number> {
    this.process.send("rss");
    const [rss] = (await once(this.process, "message")) as [number];
    return rss;
  }

  async stop(): Promise<void> {
    if (this.process.exitCode !== null || this.process.signalCode !== null) return;
    const exited = once(this.process, "exit");
    this.process.kill("SIGKILL");
    await exited;
  }
}

/**
 * In the child: answers the parent's "rss" requests, after collecting garbage and letting the heap settle,
 * with its anonymous resident memory (RssAnon: what a flood can make it hold). Not the whole resident set:
 * that counts the pages of the node binary too, and on Node 22 and later about 10 MiB of them (V8's
 * optimizing compilers) come in whenever the compilers first run, which on a loaded machine was during
 * the measured flood rather than the warm-up one (RSS grew 11-12 MiB in 2 of 3 runs of the stub's flood
 * test on Node 22 at load 45, none of it the flood's).
 */
export function answerMemoryRequests(): void {
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
  process.on("message", (message) => {
    if (message !== "rss") return;
    gc();
    setTimeout(() => {
      gc();
      process.send?.(rssAnon());
    }, 200);
  });
}

/** The calling process's RssAnon in bytes (Linux's /proc), else its whole resident set. */
function rssAnon(): number {
  const status = existsSync("/proc/self/status") ? readFileSync("/proc/self/status", "utf8") : "";
  const kib = /^RssAnon:\s+(\d+) kB$/m.exec(status)?.[1];
  return kib === undefined ? process.memoryUsage().rss : Number(kib) * 1024;
}

/** Whether `sink` emits 'drain' within `ms`. */
function drained(sink: Writable, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const onDrain = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      sink.off("drain", onDrain);
      resolve(false);
    }, ms);
    sink.once("drain", onDrain);
  });
}
