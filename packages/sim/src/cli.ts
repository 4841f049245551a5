#!/usr/bin/env node
/** The `nri-sim` command. */
import { runCli } from "./run-cli.js";

// Output piped into a command that stops reading (`| head`) ends the run quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? 0);
  });
}

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
