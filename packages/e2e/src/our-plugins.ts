/** Our plugins and the Go logger, as the checks start them against a runtime. */
import { join } from "node:path";
import { e2eContext } from "./context.js";
import { nodePlugin, type PluginCommand } from "./plugins.js";
import type { Runtime } from "./runtime.js";
import { everyEventOf } from "./versions.js";

/** `-events` for every event the runtime's line sends (none: all). */
function eventsFlag(runtime: Runtime): string[] {
  const events = everyEventOf(runtime.line);
  return events ? ["-events", events] : [];
}

/** `nri-logger` on the runtime's socket, every event to `<logs>/<label>.events`. */
export function tsLogger(
  runtime: Runtime,
  index: string,
  args: readonly string[] = [],
  label = "ts-logger",
): PluginCommand {
  const { nriSocket, logs } = runtime.layout;
  return nodePlugin(label, "plugins/logger", [
    "-idx",
    index,
    "-socket-path",
    nriSocket,
    "-log-file",
    join(logs, `${label}.events`),
    ...eventsFlag(runtime),
    ...args,
  ]);
}

/** `nri-ulimit-adjuster` on the runtime's socket. */
export function ulimitAdjuster(runtime: Runtime, index: string): PluginCommand {
  return nodePlugin("ulimit-adjuster", "plugins/ulimit-adjuster", [
    "-idx",
    index,
    "-socket",
    runtime.layout.nriSocket,
    "-verbose",
  ]);
}

/** `nri-device-injector` on the runtime's socket. */
export function deviceInjector(runtime: Runtime, index: string): PluginCommand {
  return nodePlugin("device-injector", "plugins/device-injector", [
    "-idx",
    index,
    "-socket-path",
    runtime.layout.nriSocket,
    "-verbose",
  ]);
}

/** `nri-hook-injector` on the runtime's socket, reading (and watching) `hooksDir` only. */
export function hookInjector(runtime: Runtime, index: string, hooksDir: string): PluginCommand {
  return nodePlugin("hook-injector", "plugins/hook-injector", [
    "-idx",
    index,
    "-socket-path",
    runtime.layout.nriSocket,
    "-hooks-dirs",
    hooksDir,
    "-verbose",
  ]);
}

/** `nri-writable-cgroups` on the runtime's socket, checking `mountFile` for nsdelegate. */
export function writableCgroups(runtime: Runtime, index: string, mountFile: string): PluginCommand {
  return nodePlugin("writable-cgroups", "plugins/writable-cgroups", [
    "-idx",
    index,
    "-socket-path",
    runtime.layout.nriSocket,
    "-host-mount-file",
    mountFile,
    "-verbose",
  ]);
}

/** The Go logger (upstream's pkg/stub), every event as a JSON line to `<logs>/go-logger.events`. */
export function goLogger(runtime: Runtime, index: string): PluginCommand {
  const { nriSocket, logs } = runtime.layout;
  return {
    label: "go-logger",
    command: e2eContext().goLogger,
    args: [
      ...["-mode", "logger", "-name", "go-logger", "-idx", index],
      ...["-socket-path", nriSocket, "-log", join(logs, "go-logger.events")],
      ...eventsFlag(runtime),
    ],
  };
}

/** `nri-exit-reporter` on the runtime's socket, configured by the YAML file at `config`. */
export function exitReporter(runtime: Runtime, index: string, config: string): PluginCommand {
  return nodePlugin("exit-reporter", "plugins/exit-reporter", [
    "-idx",
    index,
    "-socket-path",
    runtime.layout.nriSocket,
    "-config",
    config,
  ]);
}
