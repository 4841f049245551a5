/**
 * `nri-network-device-injector`: the network-device-injector as a program,
 * with the Go plugin's flags (`-idx`, `-socket`, `-verbose`). It changes
 * the links of its own network namespace (run it in the host's), logs in
 * the Go plugins' text format on stderr, and exits 1 when the runtime goes
 * away.
 */
import { createLogger, flagsOrExit, parseGoFlags, runPlugin } from "@nri-ts/stub";
import { NETWORK_DEVICE_INJECTOR_FLAGS } from "./flags.js";
import { createNetworkDeviceInjector } from "./plugin.js";

async function main(): Promise<void> {
  const flags = flagsOrExit(() =>
    parseGoFlags(NETWORK_DEVICE_INJECTOR_FLAGS, process.argv.slice(2), "nri-network-device-injector"),
  );
  const logger = createLogger({ format: "text", level: flags.verbose ? "debug" : "info" });
  await runPlugin(createNetworkDeviceInjector({ logger }), {
    ...(flags.idx && { index: flags.idx }),
    ...(flags.socket && { socketPath: flags.socket }),
    defaultName: "network-device-injector",
    logger,
  });
}

await main();
