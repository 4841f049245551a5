/**
 * `nri-exit-reporter`: the exit reporter as a program. It connects to the
 * runtime (the socket, or the fd a runtime that launched it passes),
 * reports container ends to its outputs, logs JSON lines on stderr, and
 * exits 1 when the runtime goes away, after flushing its outputs.
 */
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { DEFAULT_SOCKET_PATH, PLUGIN_IDX_ENV } from "@nri-ts/api";
import { createLogger, flagsOrExit, runPlugin } from "@nri-ts/stub";
import { decodeConfig, type ExitReporterConfig, ExitReporterConfigError } from "./config.js";
import { formatConfigIssue } from "./config-issues.js";
import { DEFAULT_INDEX, DEFAULT_NAME, FAILURE_POLICY, parseFlags } from "./flags.js";
import { createExitReporterPlugin } from "./plugin.js";
import { ExitReporter } from "./reporter.js";

async function main(): Promise<void> {
  const flags = flagsOrExit(() => parseFlags(process.argv.slice(2)));
  const logger = createLogger({ level: flags.verbose ? "debug" : "info" });
  // The gRPC socket goes beside the runtime's socket unless the configuration says otherwise.
  const defaults = { grpcSocket: join(dirname(flags["socket-path"] || DEFAULT_SOCKET_PATH), "exit-reporter.sock") };
  let config: ExitReporterConfig | undefined;
  if (flags.config) {
    try {
      config = decodeConfig(await readFile(flags.config, "utf8"), defaults);
    } catch (error) {
      // Every mistake on a line of its own, as a compiler (and nri-sim, for scenarios) lists them.
      const lines =
        error instanceof ExitReporterConfigError
          ? error.issues.map((issue) => formatConfigIssue(issue, flags.config))
          : [`${flags.config}: ${(error as Error).message}`];
      process.stderr.write(`${lines.join("\n")}\n`);
      process.exit(2);
    }
  }
  const reporter = new ExitReporter({ logger });
  // A runtime that launches the plugin sets the index; otherwise -idx, else 90.
  const launched = process.env[PLUGIN_IDX_ENV] !== undefined;
  await runPlugin(createExitReporterPlugin(reporter, { config, defaults }), {
    ...(flags.name && { name: flags.name }),
    ...(!launched && { index: flags.idx || DEFAULT_INDEX }),
    ...(flags["socket-path"] && { socketPath: flags["socket-path"] }),
    defaultName: DEFAULT_NAME,
    // Best-effort: never fail a container operation; stay registered through one late answer.
    failurePolicy: FAILURE_POLICY,
    logger,
    onClose: () => logger.info("connection to the runtime lost, exiting"),
    exit: (code) => {
      void reporter.close().finally(() => process.exit(code));
    },
  });
}

await main();
