/**
 * `nri-logger`: the logger plugin as a program, with the Go logger's flags.
 * It connects to the runtime (the socket, or the fd a runtime that launched
 * it passes), logs what it receives, and exits 1 when the runtime goes away.
 */
import { goQuote } from "@nri-ts/common";
import type { Logger, LogFn } from "@nri-ts/stub";
import { flagsOrExit, runPlugin } from "@nri-ts/stub";
import { parseFlags } from "./flags.js";
import { createLoggerPlugin, openLogFile } from "./plugin.js";
import { TextLog } from "./text-log.js";

/** The stub's own messages, in the same text format as the rest of the log. */
function stubLogger(log: TextLog): Logger {
  const at =
    (level: "info" | "warning" | "error"): LogFn =>
    (first: object | string, msg?: string) =>
      log.log(level, typeof first === "string" ? first : (msg ?? ""));
  return { debug: () => {}, info: at("info"), warn: at("warning"), error: at("error") };
}

function main(): Promise<void> | void {
  const log = new TextLog();
  const flags = flagsOrExit(() => parseFlags(process.argv.slice(2)));
  if (flags.logFile) {
    try {
      log.setSink(openLogFile(flags.logFile));
    } catch (error) {
      log.error(`failed to open log file ${goQuote(flags.logFile)}: ${(error as Error).message}`);
      process.exit(1);
    }
  }
  let plugin;
  try {
    const { statusLines, ...settings } = flags;
    plugin = createLoggerPlugin({
      log,
      statusLines,
      config: { ...settings, events: flags.events === "" ? [] : [flags.events] },
    });
  } catch (error) {
    log.error(`failed to parse events: ${(error as Error).message}`);
    process.exit(1);
  }
  return runPlugin(plugin, {
    defaultName: "logger",
    ...(flags.idx && { index: flags.idx }),
    ...(flags.socketPath && { socketPath: flags.socketPath }),
    logger: stubLogger(log),
    onClose: () => log.info("Connection to the runtime lost, exiting..."),
  });
}

await main();
