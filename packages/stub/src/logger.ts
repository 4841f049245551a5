import type { Writable } from "node:stream";
import { type LogFn, type Logger, logCall, silentLogger } from "@nri-ts/common";
import { formatTextLine } from "./text-format.js";

// The logger contract is pino's, shared with @nri-ts/adaptation: a pino logger can be passed as is.
export { type LogFn, type Logger, silentLogger };

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

const LEVELS: Readonly<Record<LogLevel, number>> = { debug: 20, info: 30, warn: 40, error: 50, silent: Infinity };

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** Lines below this level are dropped; default `info`. */
  level?: LogLevel;
  /** Where lines go; default `process.stderr`. */
  stream?: Pick<Writable, "write">;
  /** Fields added to every line. */
  bindings?: Record<string, unknown>;
  /** The clock, for tests; default `() => new Date()`. */
  now?: () => Date;
  /**
   * `json` (default): one JSON object per line. `text`: the Go plugins'
   * logrus text lines (`time="…" level=info msg="…" key=value`; on a
   * terminal `INFO   [0012] message  key=value`), for plugins whose output
   * users compare with the Go plugin's.
   */
  format?: "json" | "text";
}

/**
 * The default logger: one JSON object per line, with `time` (ISO 8601),
 * `level`, `msg`, the bound fields and the call's fields. Errors are written
 * as `{name, message, code?}`, bigints as decimal strings.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  return makeLogger(options, options.bindings ?? {}, (options.now ?? (() => new Date()))());
}

/** A logger with these bindings; `started` is when the first logger of the family was made (the terminal layout counts from it). */
function makeLogger(options: LoggerOptions, bindings: Record<string, unknown>, started: Date): Logger {
  const threshold = LEVELS[options.level ?? "info"];
  const stream = options.stream ?? process.stderr;
  const now = options.now ?? (() => new Date());
  const tty = (stream as { isTTY?: boolean }).isTTY === true;

  const method =
    (level: Exclude<LogLevel, "silent">): LogFn =>
    (first: object | string, msg?: string): void => {
      if (LEVELS[level] < threshold) return;
      const { fields, message: text } = logCall(first, msg);
      const at = now();
      if (options.format === "text") {
        const line = { at, level, msg: text, fields: { ...bindings, ...fields } };
        stream.write(formatTextLine(line, tty ? at.getTime() - started.getTime() : undefined));
        return;
      }
      const line = { time: at.toISOString(), level, msg: text, ...bindings, ...fields };
      stream.write(`${stringify(line)}\n`);
    };

  return {
    debug: method("debug"),
    info: method("info"),
    warn: method("warn"),
    error: method("error"),
    child: (more) => makeLogger(options, { ...bindings, ...more }, started),
  };
}

/** The logger with `bindings` on every line, through `child` when the logger has one. */
export function bindLogger(logger: Logger, bindings: Record<string, unknown>): Logger {
  return logger.child ? logger.child(bindings) : logger;
}

function stringify(line: object): string {
  try {
    return JSON.stringify(line, replacer);
  } catch (error) {
    // a cycle or a throwing getter in the fields: keep the line, say why
    const { time, level, msg } = line as { time: string; level: string; msg: string };
    return JSON.stringify({ time, level, msg, logError: error instanceof Error ? error.message : String(error) });
  }
}

function replacer(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return { name: value.name, message: value.message, ...(code === undefined ? {} : { code }) };
  }
  return value;
}
