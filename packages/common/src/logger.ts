/**
 * A log method, as pino's: structured fields and then a message, or a
 * message alone.
 */
export interface LogFn {
  (fields: object, msg?: string): void;
  (msg: string): void;
}

/**
 * What every `@nri-ts` package logs through, in pino's argument order:
 * `logger.info({ plugin: "10-logger" }, "plugin registered")`. A pino
 * logger fits as it is; `child`, when present, binds fields to every line.
 */
export interface Logger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  child?(bindings: Record<string, unknown>): Logger;
}

/** The fields and the message of a log call, whichever of its two forms it took. */
export function logCall(first: object | string, msg?: string): { fields: object; message: string } {
  return typeof first === "string" ? { fields: {}, message: first } : { fields: first, message: msg ?? "" };
}

/** A logger that drops everything. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => silentLogger,
};
