/**
 * `tsx src/jaeger-cli.ts build`: builds Jaeger (or finds it in the cache)
 * and prints the binary's path on its last line. CI runs it in the
 * background right after `npm ci` (nice 10), so that the cold build overlaps
 * the rest; the tracing test runs it too, and then finds the binary cached.
 */
import { buildJaeger, JAEGER_VERSION } from "./jaeger.js";

if (process.argv[2] !== "build") {
  console.error("usage: jaeger-cli.ts build");
  process.exit(2);
}
const started = performance.now();
const { binary, built } = await buildJaeger();
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.error(`jaeger ${JAEGER_VERSION}: ${built ? `built in ${seconds} s` : "cached"}`);
console.log(binary);
