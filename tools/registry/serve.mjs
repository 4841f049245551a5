#!/usr/bin/env node
/**
 * Starts Verdaccio (installed in the directory given first) with the
 * configuration file given second, on a free loopback port, and prints
 * `{"port": N}` once it listens. It stops when its standard input closes, so
 * that it never outlives the test that started it.
 *
 *   node serve.mjs <verdaccio install dir> <config.yaml>
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [dir, config] = process.argv.slice(2);
if (!dir || !config) {
  process.stderr.write("usage: node serve.mjs <verdaccio install dir> <config.yaml>\n");
  process.exit(2);
}
const entry = createRequire(join(dir, "package.json")).resolve("verdaccio");
const { runServer } = await import(pathToFileURL(entry).href);
const server = await runServer(config);
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
