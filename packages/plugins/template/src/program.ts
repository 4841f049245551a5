/**
 * `nri-template`: the template plugin as a program, with the Go template's
 * flags (`-name`, `-idx`, `-socket`). It connects to the runtime (the
 * socket, or the fd a runtime that launched it passes), logs JSON lines on
 * stderr, and exits 1 when the runtime goes away.
 */
import { createLogger, flagsOrExit, parseGoFlags, runPlugin } from "@nri-ts/stub";
import { TEMPLATE_FLAGS } from "./flags.js";
import { createTemplatePlugin } from "./plugin.js";

async function main(): Promise<void> {
  const flags = flagsOrExit(() => parseGoFlags(TEMPLATE_FLAGS, process.argv.slice(2), "nri-template"));
  const logger = createLogger();
  await runPlugin(createTemplatePlugin({ logger }), {
    ...(flags.name && { name: flags.name }),
    ...(flags.idx && { index: flags.idx }),
    ...(flags.socket && { socketPath: flags.socket }),
    defaultName: "template",
    logger,
    onClose: () => logger.info("Connection to the runtime lost, exiting..."),
  });
}

await main();
