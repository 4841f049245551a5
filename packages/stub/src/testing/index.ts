export { type ConnectPluginOptions, connectPlugin } from "./connect-plugin.js";
export { ScriptedRuntime, ScriptedRuntimeListener, type ScriptedRuntimeOptions } from "./scripted-runtime.js";
