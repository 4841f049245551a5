#!/usr/bin/env node
/**
 * `nri-exits`: see cli.ts. Interrupting `watch` (Ctrl-C, SIGTERM) ends it with exit code 0.
 * Node's compile cache is on before cli.js and its modules load (a static import would load them first).
 */
import { enableCompileCache } from "node:module";

enableCompileCache();
const { runCli } = await import("./cli.js");

const stop = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => stop.abort());
process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: stop.signal,
});
