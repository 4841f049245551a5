/**
 * `tsx src/cli.ts prefetch|build`: the tool builds outside vitest. CI starts
 * `prefetch` in the background right after `npm ci`, so that the module
 * downloads overlap the rest of CI and the e2e step only compiles.
 */
import { timed } from "./timings.js";
import { buildToolset, prefetchToolset } from "./toolset.js";
import { selectedLines } from "./versions.js";

const command = process.argv[2];
const lines = selectedLines();
if (command === "prefetch") {
  await timed("prefetch Go modules of the tools", () => prefetchToolset(lines));
} else if (command === "build") {
  console.log(await buildToolset(lines));
} else {
  console.error("usage: cli.ts prefetch|build");
  process.exit(2);
}
