// The benchmark's no-op plugin on @nri-ts/stub: subscribes to CreateContainer
// and answers it with nothing, the twin of `stub-host plugin -create noop`.
// Plain JavaScript on the built package (npm run build), so that its memory
// is that of the plugin alone, without a TypeScript loader.
//   node noop-program.mjs SOCKET   (noop-plugin.mjs runs it with Node's compile cache on)
import { createLogger, runPlugin } from "@nri-ts/stub";

await runPlugin(
  { createContainer: () => {} },
  { socketPath: process.argv[2], index: "10", name: "noop-ts", logger: createLogger({ level: "warn" }) },
);
