// The benchmark's no-op plugin with an OpenTelemetry SDK registered, as an
// application registers one (spans batched, then dropped): every
// CreateContainer runs in a span of its own. Plain JavaScript on the built
// package, as noop-plugin.mjs.
//   node noop-plugin-traced.mjs SOCKET
import { registerTracing } from "@nri-ts/bench/tracing-sdk";
import { createLogger, runPlugin } from "@nri-ts/stub";

registerTracing();
await runPlugin(
  { createContainer: () => {} },
  { socketPath: process.argv[2], index: "10", name: "noop-traced", logger: createLogger({ level: "warn" }) },
);
