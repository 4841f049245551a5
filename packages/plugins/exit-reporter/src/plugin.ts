/**
 * The exit reporter as an NRI plugin: it watches containers being created
 * (and the running ones at Synchronize), and reports each end from
 * StopContainer, or from RemoveContainer when no StopContainer came. On
 * runtimes before NRI v0.12 RemoveContainer arrives through StateChange;
 * the stub hands it to the same handler.
 */
import { ContainerState } from "@nri-ts/api";
import type { Plugin } from "@nri-ts/stub";
import { type ConfigDefaults, decodeConfig, defaultConfig, type ExitReporterConfig } from "./config.js";
import type { ExitReporter } from "./reporter.js";

export interface ExitReporterPluginOptions {
  /** The configuration when the runtime sends none (an external plugin's `-config` file); default the defaults. */
  config?: ExitReporterConfig;
  /** What the defaults depend on, for a configuration from the runtime too. */
  defaults?: ConfigDefaults;
}

const LIVE = new Set([
  ContainerState.CONTAINER_CREATED,
  ContainerState.CONTAINER_RUNNING,
  ContainerState.CONTAINER_PAUSED,
]);

export function createExitReporterPlugin(reporter: ExitReporter, options: ExitReporterPluginOptions = {}): Plugin {
  const fallback = options.config ?? defaultConfig(options.defaults);
  let fromRuntime: { text: string; config: ExitReporterConfig } | undefined;
  return {
    async configure({ config: text, runtimeName, runtimeVersion }) {
      let config = fallback;
      if (text.trim() !== "") {
        // The same text again (a reconnection) keeps the outputs, and their watchers, running.
        if (fromRuntime?.text !== text) fromRuntime = { text, config: decodeConfig(text, options.defaults) };
        config = fromRuntime.config;
      }
      const source =
        config !== fallback
          ? "the runtime's configuration"
          : options.config
            ? "its configuration file"
            : "the defaults";
      reporter.logger.info(`configured by ${runtimeName} ${runtimeVersion}; using ${source}`);
      await reporter.configure(config);
    },
    async synchronize(pods, containers) {
      const byId = new Map(pods.map((pod) => [pod.id, pod]));
      const live = containers.filter((container) => LIVE.has(container.state));
      await Promise.all(
        live.map((container) => reporter.watch(container.id, container, byId.get(container.podSandboxId), "running")),
      );
    },
    async postCreateContainer(pod, container) {
      // before the runtime starts the container: its parent cgroup's OOM kills are counted from here
      await reporter.watch(container.id, container, pod);
    },
    async stopContainer(pod, container, { signal }) {
      await reporter.containerEnded("StopContainer", pod, container, signal);
    },
    async removeContainer(pod, container, { signal }) {
      await reporter.containerEnded("RemoveContainer", pod, container, signal);
      reporter.removed(container.id);
    },
  };
}
