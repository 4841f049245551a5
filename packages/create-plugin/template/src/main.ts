#!/usr/bin/env node
/**
 * `nri-{{name}}`: the plugin as a program, for a DaemonSet, a shell or the
 * runtime's plugin directory. It takes the flags of the Go plugins (`-name`,
 * `-idx`, `-socket`), connects to the runtime, logs JSON lines on stderr
 * and exits 1 when the runtime goes away.
 */
import { createLogger, flagsOrExit, parseGoFlags, runPlugin, socketFlags } from "@nri-ts/stub";
import { plugin } from "./plugin.js";

const FLAGS = [
  { name: "name", kind: "string", usage: "plugin name to register to NRI" },
  { name: "idx", kind: "string", usage: "plugin index to register to NRI" },
  ...socketFlags("socket", "path to the NRI socket"),
] as const;

const flags = flagsOrExit(() => parseGoFlags(FLAGS, process.argv.slice(2), "nri-{{name}}"));

const logger = createLogger();
await runPlugin(plugin, {
  ...(flags.name && { name: flags.name }),
  ...(flags.idx && { index: flags.idx }),
  ...(flags.socket && { socketPath: flags.socket }),
  defaultName: "{{name}}",
  logger,
  onClose: () => logger.info("Connection to the runtime lost, exiting..."),
});
