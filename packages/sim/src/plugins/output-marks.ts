/**
 * How a plugin module's child process tells the simulator that a handler
 * has finished: a marker line on stdout after each handler call (the
 * plugin's own output having been written before it), so that what the
 * plugin prints is reported under the step that made it print.
 */
import type { Plugin } from "@nri-ts/stub";

/** The marker line; starts with a control character no log line starts with. */
export const HANDLER_DONE_MARK = "\u0010nri-sim:handler-done";

/**
 * The child's answers to the simulator's fault commands on its stdin
 * (`{"arm": {fault, on?}}`, `{"disarm": true}`), and the line it writes when
 * an armed fault happens (before it happens).
 */
export const FAULT_ARMED_MARK = "\u0010nri-sim:fault-armed";
export const FAULT_DISARMED_MARK = "\u0010nri-sim:fault-disarmed";
export const FAULT_FIRED_MARK = "\u0010nri-sim:fault-fired";

/** The marker before a span's JSON, on the stdout of a plugin's process that traces (see trace/span-lines.ts). */
export const SPAN_MARK = "\u0010nri-sim:span ";

/** The plugin's methods that answer a request the runtime counts as an invocation. */
const COUNTED = [
  "synchronize",
  "runPodSandbox",
  "updatePodSandbox",
  "postUpdatePodSandbox",
  "stopPodSandbox",
  "removePodSandbox",
  "createContainer",
  "postCreateContainer",
  "startContainer",
  "postStartContainer",
  "updateContainer",
  "postUpdateContainer",
  "stopContainer",
  "removeContainer",
  "validateContainerAdjustment",
] as const;

/**
 * The plugin with each counted handler followed by `mark()`, whether it
 * returns or throws. Synchronize, which the stub answers by itself without a
 * handler, gets one that returns nothing, so that every call is marked.
 */
export function markingHandlers(plugin: Plugin, mark: () => void): Plugin {
  const marked: Record<string, unknown> = { ...plugin };
  for (const name of COUNTED) {
    const handler = plugin[name] as ((...args: unknown[]) => unknown) | undefined;
    if (handler === undefined && name !== "synchronize") continue;
    marked[name] = async (...args: unknown[]) => {
      try {
        return await handler?.apply(plugin, args);
      } finally {
        mark();
      }
    };
  }
  return marked as Plugin;
}
