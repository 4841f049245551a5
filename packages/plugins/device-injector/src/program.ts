/**
 * `nri-device-injector`: the device-injector as a program, with the Go
 * plugin's flags (`-idx`, `-socket-path`, `-verbose`). It connects to the
 * runtime (the socket, or the fd a runtime that launched it passes), logs
 * JSON lines on stderr, and exits 1 when the runtime goes away.
 */
import { createLogger, flagsOrExit, parseGoFlags, runPlugin } from "@nri-ts/stub";
import { DEVICE_INJECTOR_FLAGS } from "./flags.js";
import { createDeviceInjector } from "./plugin.js";

async function main(): Promise<void> {
  const flags = flagsOrExit(() => parseGoFlags(DEVICE_INJECTOR_FLAGS, process.argv.slice(2), "nri-device-injector"));
  const logger = createLogger({ level: flags.verbose ? "debug" : "info" });
  await runPlugin(createDeviceInjector(), {
    defaultName: "device-injector",
    ...(flags.idx && { index: flags.idx }),
    ...(flags["socket-path"] && { socketPath: flags["socket-path"] }),
    logger,
  });
}

await main();
