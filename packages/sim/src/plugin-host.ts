/**
 * The child process that runs a plugin module for nri-sim:
 * `plugin-host <module> <index> <name> <socket> [<config>]`. It imports the module,
 * takes its plugin (see `pluginFromModule`) and runs it with @nri-ts/stub
 * against the simulator's socket, as an external plugin. The stub's own
 * logs are limited to warnings; what the plugin prints goes to the report.
 * Everything goes to stdout, where a marker follows each handler call
 * (see `output-marks.ts`).
 */
import { pathToFileURL } from "node:url";
import { createLogger, runPlugin } from "@nri-ts/stub";
import { HANDLER_DONE_MARK, markingHandlers } from "./output-marks.js";
import { pluginFromModule } from "./plugin-module.js";
import { errorText } from "./error-text.js";

process.stderr.write = process.stdout.write.bind(process.stdout) as typeof process.stderr.write;

async function main(): Promise<void> {
  const [modulePath, index, name, socketPath, config = ""] = process.argv.slice(2);
  if (!modulePath || !index || !name || !socketPath) {
    process.stderr.write("usage: plugin-host <module> <index> <name> <socket> [<config>]\n");
    process.exit(2);
  }
  const plugin = await pluginFromModule(await import(pathToFileURL(modulePath).href), modulePath, config);
  await runPlugin(markingHandlers(plugin, () => process.stdout.write(`${HANDLER_DONE_MARK}\n`)), {
    index,
    name,
    socketPath,
    env: {},
    logger: createLogger({ level: "info", stream: process.stdout }),
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${errorText(error)}\n`);
  process.exit(1);
});
