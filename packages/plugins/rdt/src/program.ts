/**
 * `nri-rdt`: the rdt plugin as a program, with the Go plugin's flags
 * (`-idx`, `-verbose`) and `-socket`. It logs in the Go plugins' text
 * format on stderr and exits 1 when the runtime goes away.
 */
import { createLogger, flagsOrExit, parseGoFlags, runPlugin } from "@nri-ts/stub";
import { RDT_FLAGS } from "./flags.js";
import { createRdtPlugin } from "./plugin.js";

async function main(): Promise<void> {
  const flags = flagsOrExit(() => parseGoFlags(RDT_FLAGS, process.argv.slice(2), "nri-rdt"));
  const logger = createLogger({ format: "text", level: flags.verbose ? "debug" : "info" });
  logger.info({ verbose: flags.verbose }, "Starting plugin");
  await runPlugin(createRdtPlugin({ logger }), {
    ...(flags.idx && { index: flags.idx }),
    ...(flags.socket && { socketPath: flags.socket }),
    defaultName: "rdt",
    logger,
  });
}

await main();
