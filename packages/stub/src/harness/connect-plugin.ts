import type { ConfigureRequest, DeepPartial } from "@nri-ts/api";
import { silentLogger } from "../logger.js";
import type { Plugin } from "../plugin.js";
import type { CheckedPlugin } from "../plugin-check.js";
import { Stub, type StubOptions } from "../stub.js";
import { ScriptedRuntime, type ScriptedRuntimeOptions } from "./scripted-runtime.js";

/** Options of {@link connectPlugin}. */
export interface ConnectPluginOptions {
  /** Stub options; by default index "10", name "test", no logging, an empty environment. */
  stub?: StubOptions;
  runtime?: ScriptedRuntimeOptions;
  /** What the runtime sends in Configure. */
  configure?: DeepPartial<ConfigureRequest>;
}

/**
 * Runs a plugin against a scripted runtime, for a plugin's unit tests:
 * resolves once the stub is registered, configured and synchronized, with
 * the runtime to drive it. Stop the stub when done.
 *
 * ```ts
 * const { stub, runtime } = await connectPlugin(myPlugin);
 * const reply = await runtime.plugin.createContainer({ pod: { id: "p" }, container: { id: "c" } });
 * await stub.stop();
 * ```
 */
export async function connectPlugin<P extends Plugin>(
  plugin: CheckedPlugin<P>,
  options: ConnectPluginOptions = {},
): Promise<{ stub: Stub; runtime: ScriptedRuntime }> {
  const { runtime, connection } = await ScriptedRuntime.pair(options.runtime);
  const stub = new Stub<P>(plugin, {
    index: "10",
    name: "test",
    logger: silentLogger,
    env: {},
    ...options.stub,
    connection,
  });
  const started = stub.start();
  try {
    await Promise.all([started, runtime.handshake(options.configure)]);
  } catch (error) {
    await stub.stop();
    runtime.close();
    throw error;
  }
  return { stub, runtime };
}
