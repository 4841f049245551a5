/**
 * `nri-ulimit-adjuster`: the ulimit-adjuster as a program, with the Go
 * plugin's flags (`-name`, `-idx`, `-socket`, `-verbose`). It connects to
 * the runtime (the socket, or the fd a runtime that launched it passes),
 * logs JSON lines on stderr (debug lines with `-verbose`), and exits 1 when
 * the runtime goes away.
 */
import { createLogger, flagsOrExit, parseGoFlags, runPlugin } from "@nri-ts/stub";
import { ULIMIT_ADJUSTER_FLAGS } from "./flags.js";
import { createUlimitAdjuster } from "./plugin.js";

async function main(): Promise<void> {
  const flags = flagsOrExit(() => parseGoFlags(ULIMIT_ADJUSTER_FLAGS, process.argv.slice(2), "nri-ulimit-adjuster"));
  const logger = createLogger({
    level: flags.verbose ? "debug" : "info",
    bindings: { name: flags.name, idx: flags.idx },
  });
  logger.info({ verbose: flags.verbose }, "starting plugin");
  await runPlugin(createUlimitAdjuster(), {
    ...(flags.name && { name: flags.name }),
    ...(flags.idx && { index: flags.idx }),
    ...(flags.socket && { socketPath: flags.socket }),
    defaultName: "ulimit-adjuster",
    logger,
  });
}

await main();
