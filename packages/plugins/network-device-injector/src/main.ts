#!/usr/bin/env node
/**
 * `nri-network-device-injector`, the program in program.ts, loaded after Node's compile cache is
 * on: the code compiled for its modules is kept (in os.tmpdir()), so that
 * the next start compiles less. It must be on before they load, which a
 * static import would do first.
 */
import { enableCompileCache } from "node:module";

enableCompileCache();
await import("./program.js");
