#!/usr/bin/env node
/** `nri-exits`: see cli.ts. Interrupting `watch` (Ctrl-C, SIGTERM) ends it with exit code 0. */
import { runCli } from "./cli.js";

const stop = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => stop.abort());
process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: stop.signal,
});
