#!/usr/bin/env node
/**
 * The `nri-sim` command. Node's compile cache is on before run-cli.js and
 * its modules load (a static import would load them first): the code
 * compiled for them is kept in os.tmpdir(), and the next run compiles less.
 */
import { enableCompileCache } from "node:module";

enableCompileCache();

// Output piped into a command that stops reading (`| head`) ends the run quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? 0);
  });
}

const { runCli } = await import("./run-cli.js");
process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
