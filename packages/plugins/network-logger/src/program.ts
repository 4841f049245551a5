/**
 * `nri-network-logger`: the network-logger as a program, with the Go
 * plugin's flags (`-idx`, `-socket`). It logs in the Go plugins' text
 * format on stderr and exits 1 when the runtime goes away.
 */
import { createLogger, flagsOrExit, parseGoFlags, runPlugin } from "@nri-ts/stub";
import { NETWORK_LOGGER_FLAGS } from "./flags.js";
import { createNetworkLogger } from "./network-logger.js";

async function main(): Promise<void> {
  const flags = flagsOrExit(() => parseGoFlags(NETWORK_LOGGER_FLAGS, process.argv.slice(2), "nri-network-logger"));
  const logger = createLogger({ format: "text" });
  await runPlugin(createNetworkLogger({ logger }), {
    ...(flags.idx && { index: flags.idx }),
    ...(flags.socket && { socketPath: flags.socket }),
    defaultName: "network-logger",
    logger,
    onClose: () => logger.info("Connection to the runtime lost, exiting..."),
  });
}

await main();
