/**
 * A scripted runtime to test a plugin against, and `connectPlugin`.
 * @module @nri-ts/stub/testing
 */
// Its types use Node's (streams, sockets, Buffer): the reference stays in the .d.ts for projects with "types": [].
/// <reference types="node" preserve="true" />
export { type ConnectPluginOptions, connectPlugin } from "./connect-plugin.js";
export { ScriptedRuntime, ScriptedRuntimeListener, type ScriptedRuntimeOptions } from "./scripted-runtime.js";
