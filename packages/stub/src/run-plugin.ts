import { messageOf, StubError } from "./errors.js";
import { createLogger } from "./logger.js";
import type { Plugin } from "./plugin.js";
import type { CheckedPlugin } from "./plugin-check.js";
import { Stub, type StubOptions } from "./stub.js";

/** Options of {@link runPlugin}: the stub's, and how the process ends. */
export interface RunPluginOptions extends StubOptions {
  /** The exit code when the runtime goes away; default 1, as Go plugins exit. */
  exitCode?: number;
  /** Signals that stop the plugin cleanly (exit code 0); default SIGTERM and SIGINT. */
  signals?: readonly NodeJS.Signals[];
  /** Ends the process; default `process.exit`. */
  exit?: (code: number) => void;
  /**
   * Called with the plugin's `Stub` once it is made, before it connects:
   * keep it to push updates from outside a handler (`stub.updateContainers`,
   * once `stub.connected`), or to stop the plugin (`stub.stop()`). A throw
   * ends the program as a failed start does (exit code 1).
   */
  onStub?: (stub: Stub) => void;
}

/**
 * The main of a plugin program: runs the plugin until a signal stops it
 * (exit code 0) or the runtime goes away (`exitCode`, default 1), and exits
 * 1 when it cannot start. When it cannot tell its identity (no index, a
 * bad name: how it was started is wrong), it says so on stderr, in words,
 * and exits 2, as for a bad command line. With `reconnect`, it reconnects
 * instead of exiting when the runtime goes away.
 *
 * ```ts
 * await runPlugin({ createContainer: (pod, ctr) => ({ annotations: { seen: "yes" } }) });
 * ```
 *
 * Keys in the handlers' answers that no answer form has are type errors
 * (see {@link definePlugin}).
 */
export async function runPlugin<P extends Plugin>(
  plugin: CheckedPlugin<P>,
  options: RunPluginOptions = {},
): Promise<void> {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let stub: Stub;
  try {
    stub = new Stub<P>(plugin, options);
    options.onStub?.(stub);
  } catch (error) {
    if (error instanceof StubError && error.code === "ERR_STUB_IDENTITY") {
      process.stderr.write(`${error.message}\n`);
      return exit(2);
    }
    (options.logger ?? createLogger()).error({ err: error }, `cannot create the plugin: ${messageOf(error)}`);
    return exit(1);
  }

  const onSignal = (signal: NodeJS.Signals): void => {
    stub.logger.info({ signal }, `received ${signal}, stopping`);
    void stub.stop();
  };
  const signals = options.signals ?? ["SIGTERM", "SIGINT"];
  // once: a second signal finds Node's default handler and ends the process at once
  for (const signal of signals) process.once(signal, onSignal);

  let code = 0;
  try {
    await stub.run();
  } catch (error) {
    const lost = error instanceof StubError && error.code === "ERR_STUB_CONNECTION_LOST";
    code = lost ? (options.exitCode ?? 1) : 1;
    stub.logger.error({ err: error, exitCode: code }, `plugin ${stub.name} ended: ${messageOf(error)}`);
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
  }
  exit(code);
}
