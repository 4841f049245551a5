/**
 * `nri-hook-injector`: the hook-injector as a program, with the Go plugin's
 * flags (`-idx`, `-socket-path`, `-verbose`, `-disableWatch`). It reads the
 * hook directories (exiting 1 if a hook file is bad), watches them unless
 * told not to, connects to the runtime, and exits 1 when the runtime goes
 * away.
 */
import { goQuote } from "@nri-ts/common";
import { createLogger, flagsOrExit, parseGoFlags, runPlugin } from "@nri-ts/stub";
import { HOOK_INJECTOR_FLAGS } from "./flags.js";
import { HOOKS_DIRS } from "./hook-dirs.js";
import { HookSetupError, HookStore } from "./hook-store.js";
import { createHookInjector } from "./plugin.js";

async function main(): Promise<void> {
  const flags = flagsOrExit(() => parseGoFlags(HOOK_INJECTOR_FLAGS, process.argv.slice(2), "nri-hook-injector"));
  const logger = createLogger({ level: flags.verbose ? "debug" : "info" });
  const dirs = flags["hooks-dirs"] === "" ? HOOKS_DIRS : flags["hooks-dirs"].split(",");
  let store: HookStore;
  try {
    store = await HookStore.open(dirs, logger);
    if (!flags.disableWatch) {
      await store.watch();
      logger.info(`watching directories ${goQuote(dirs.join(" "))} for new changes`);
    }
  } catch (error) {
    if (!(error instanceof HookSetupError)) throw error;
    logger.error(error.message);
    process.exit(1);
  }
  await runPlugin(createHookInjector({ hooks: store }), {
    defaultName: "hook-injector",
    ...(flags.idx && { index: flags.idx }),
    ...(flags["socket-path"] && { socketPath: flags["socket-path"] }),
    logger,
  });
}

await main();
