/**
 * The logger's output, in the text format of the Go plugins' logger
 * (logrus with padded levels): on a terminal `INFO   [0012] message`, with
 * the seconds since start; otherwise `time="…" level=info msg="message"`.
 */

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

const PAD = "WARNING".length;
const PLAIN_VALUE = /^[A-Za-z0-9\-._/@^+]+$/;

/** A value as logrus writes it: bare when it needs no quotes, else a quoted string. */
function logfmtValue(text: string): string {
  return PLAIN_VALUE.test(text) ? text : JSON.stringify(text);
}

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
    if (this.sink.isTTY) {
      const seconds = String(Math.floor((at.getTime() - this.started) / 1000)).padStart(4, "0");
      this.sink.write(`${level.toUpperCase().padEnd(PAD)}[${seconds}] ${message}\n`);
    } else {
      const time = at.toISOString().replace(/\.\d{3}Z$/, "Z");
      this.sink.write(`time=${logfmtValue(time)} level=${level} msg=${logfmtValue(message)}\n`);
    }
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
