/**
 * The logger's output, in the text format of the Go plugins' logger
 * (logrus with padded levels, as @nri-ts/stub's text lines): on a terminal
 * `INFO   [0012] message`, with the seconds since start; otherwise
 * `time="…" level=info msg="message"`.
 */
import { formatTextLine } from "@nri-ts/stub";

export type Level = "debug" | "info" | "warning" | "error";

export interface LogSink {
  isTTY?: boolean;
  write(text: string): unknown;
}

export interface TextLogOptions {
  /** Where lines go; default stderr. */
  sink?: LogSink;
  /** The clock; default the real one. */
  now?: () => Date;
}

const TEXT_LEVEL = { debug: "debug", info: "info", warning: "warn", error: "error" } as const;

export class TextLog {
  private sink: LogSink;
  private readonly now: () => Date;
  private readonly started: number;

  constructor(options: TextLogOptions = {}) {
    this.sink = options.sink ?? process.stderr;
    this.now = options.now ?? (() => new Date());
    this.started = this.now().getTime();
  }

  /** Sends further lines elsewhere (the `logFile` setting). */
  setSink(sink: LogSink): void {
    this.sink = sink;
  }

  log(level: Level, message: string): void {
    const at = this.now();
    const line = { at, level: TEXT_LEVEL[level], msg: message, fields: {} };
    this.sink.write(formatTextLine(line, this.sink.isTTY ? at.getTime() - this.started : undefined));
  }

  info(message: string): void {
    this.log("info", message);
  }

  warn(message: string): void {
    this.log("warning", message);
  }

  error(message: string): void {
    this.log("error", message);
  }
}
