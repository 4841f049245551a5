/**
 * `nri-differ`: the differ as a program, with the Go differ's flags. It
 * registers once per index of `-indices` (each registration a connection
 * of its own), logs in the Go plugins' text format (stderr, or the
 * `-log-file`), and exits 1 when the runtime goes away or a registration
 * fails.
 */
import { openSync, writeSync } from "node:fs";
import { goQuote } from "@nri-ts/common";
import { createLogger, flagsOrExit, formatTextLine, Stub } from "@nri-ts/stub";
import { createDiffer } from "./differ.js";
import { parseFlags } from "./flags.js";
import { IndicesError, parseIndices } from "./indices.js";

type Sink = { isTTY?: boolean; write(text: string): boolean };

function main(): void {
  const flags = flagsOrExit(() => parseFlags(process.argv.slice(2)));
  let sink: Sink = process.stderr;
  /** logrus's Fatal: the line, then exit 1. */
  const fatal: (message: string) => never = (message) => {
    sink.write(formatTextLine({ at: new Date(), level: "fatal", msg: message, fields: {} }));
    process.exit(1);
  };
  if (flags.logFile) {
    try {
      const fd = openSync(flags.logFile, "a", 0o644);
      sink = { write: (text: string) => writeSync(fd, text) > 0 };
    } catch (error) {
      fatal(`failed to open log file ${goQuote(flags.logFile)}: ${(error as Error).message}`);
    }
  }
  let indices: number[] = [];
  try {
    indices = parseIndices(flags.indices);
  } catch (error) {
    if (!(error instanceof IndicesError)) throw error;
    fatal(error.message);
  }
  const log = createLogger({ format: "text", stream: sink });
  const differ = createDiffer({ indices, verboseLevel: flags.verboseLevel, yaml: flags.yaml, log });
  for (const { registeredIndex, plugin } of differ) {
    let stub: Stub;
    try {
      stub = new Stub(plugin, {
        index: registeredIndex,
        defaultName: "differ",
        ...(flags.socketPath && { socketPath: flags.socketPath }),
        logger: log,
        onClose: () => {
          log.info("Connection to the runtime lost, exiting...");
          process.exit(1);
        },
      });
    } catch (error) {
      fatal(`Failed to create plugin stub: ${(error as Error).message}`);
    }
    stub.run().catch((error: unknown) => {
      log.error(`Plugin exited with error ${(error as Error).message}`);
      process.exit(1);
    });
  }
}

main();
