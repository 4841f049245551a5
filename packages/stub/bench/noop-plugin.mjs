// The benchmark's no-op plugin as installed: Node's compile cache on, as our
// plugins' bins have it, then the plugin (noop-program.mjs, which the
// bundle and the single executable are made of).
//   node noop-plugin.mjs SOCKET
import { enableCompileCache } from "node:module";

enableCompileCache();
await import("./noop-program.mjs");
