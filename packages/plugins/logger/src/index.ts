import type { Plugin } from "@nri-ts/stub";
import { decodeConfig, defaultConfig } from "./config.js";
import { createLoggerPlugin } from "./plugin.js";

export { decodeConfig, defaultConfig, type LoggerConfig, LoggerConfigError } from "./config.js";
export { FlagError, type LoggerFlags, parseFlags, usage } from "./flags.js";
export { createLoggerPlugin, eventsMask, type LoggerPluginOptions, openLogFile } from "./plugin.js";
export { statusLine } from "./status.js";
export { type Level, type LogSink, TextLog, type TextLogOptions } from "./text-log.js";

/**
 * The logger for `nri-sim --plugin`: `config` is the YAML a runtime would
 * hand it (e.g. `events: [StopContainer]`), from `--plugin-config`.
 */
export function plugin(config = ""): Plugin {
  return createLoggerPlugin({ config: config ? decodeConfig(config, defaultConfig()) : {} });
}
