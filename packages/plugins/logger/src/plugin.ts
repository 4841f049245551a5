/**
 * The logger plugin: logs every request and event it receives as YAML, the
 * lines the Go logger logs, optionally followed by a line with the
 * container's status (ours), and optionally stamps each new container with
 * an annotation and/or an environment variable whose value is
 * `logger-pid-<pid>`.
 */
import { openSync, writeSync } from "node:fs";
import { AdjustmentBuilder, type Container, type EventMask, parseEventMask } from "@nri-ts/api";
import { goQuote } from "@nri-ts/common";
import type { Plugin } from "@nri-ts/stub";
import { decodeConfig, defaultConfig, type LoggerConfig } from "./config.js";
import { dump } from "./dump.js";
import { statusLine } from "./status.js";
import { type LogSink, TextLog } from "./text-log.js";

export interface LoggerPluginOptions {
  /** Settings before any runtime configuration (the flags); default all off, all events. */
  config?: Partial<LoggerConfig>;
  /** Where to log; default stderr in the Go plugins' text format. */
  log?: TextLog;
  /** The pid in the `logger-pid-<pid>` values; default this process's. */
  pid?: number;
  /** After each container's dump, a line with its status when the runtime sent one (not in the Go logger); default off. */
  statusLines?: boolean;
}

/**
 * A log file opened for appending (created 0644), as the `-log-file` flag
 * and `logFile` setting do. Lines are written at once, so none is lost when
 * a runtime kills the plugin.
 */
export function openLogFile(path: string): LogSink {
  const fd = openSync(path, "a", 0o644);
  return { write: (text: string) => writeSync(fd, text) };
}

/** The events of a list such as the `events` setting; none means all (0). */
export function eventsMask(events: readonly string[]): EventMask {
  const entries = events.filter((entry) => entry.trim() !== "");
  return entries.length === 0 ? 0 : parseEventMask(...entries);
}

/**
 * A logger plugin for @nri-ts/stub.
 * @throws UnknownEventError when `config.events` names an unknown event
 */
export function createLoggerPlugin(options: LoggerPluginOptions = {}): Plugin {
  const log = options.log ?? new TextLog();
  const pid = options.pid ?? process.pid;
  let config: LoggerConfig = { ...defaultConfig(), ...options.config };
  let mask = eventsMask(config.events);

  const container = (prefix: string, c: Container) => {
    dump(log, prefix, ["container", c]);
    const status = options.statusLines ? statusLine(c) : undefined;
    if (status) log.info(`${prefix}: container ${c.name} status: ${status}`);
  };

  return {
    configure({ config: text, runtimeName, runtimeVersion }) {
      log.info(`got configuration data: ${goQuote(text)} from runtime ${runtimeName} ${runtimeVersion}`);
      if (text === "") return mask;
      const previous = config;
      config = decodeConfig(text, config);
      try {
        mask = eventsMask(config.events);
      } catch (error) {
        throw new Error(`failed to parse events in configuration: ${(error as Error).message}`, { cause: error });
      }
      if (config.logFile !== previous.logFile) {
        try {
          log.setSink(openLogFile(config.logFile));
        } catch (error) {
          const message = `failed to open log file ${goQuote(config.logFile)}: ${(error as Error).message}`;
          log.error(message);
          throw new Error(message, { cause: error });
        }
      }
      return mask;
    },
    synchronize(pods, containers) {
      dump(log, "Synchronize", ["pods", pods], ["containers", containers]);
    },
    shutdown() {},
    runPodSandbox(pod) {
      dump(log, "RunPodSandbox", ["pod", pod]);
    },
    updatePodSandbox(pod, overhead, resources) {
      dump(log, "UpdatePodSandbox", ["pod", pod], ["overHeadResources", overhead], ["resources", resources]);
    },
    postUpdatePodSandbox(pod) {
      dump(log, "PostUpdatePodSandbox", ["pod", pod]);
    },
    stopPodSandbox(pod) {
      dump(log, "StopPodSandbox", ["pod", pod]);
    },
    removePodSandbox(pod) {
      dump(log, "RemovePodSandbox", ["pod", pod]);
    },
    createContainer(pod, c) {
      dump(log, "CreateContainer", ["pod", pod]);
      container("CreateContainer", c);
      const value = `logger-pid-${pid}`;
      const adjust = new AdjustmentBuilder();
      if (config.addAnnotation) adjust.addAnnotation(config.addAnnotation, value);
      if (config.setAnnotation)
        adjust.removeAnnotation(config.setAnnotation).addAnnotation(config.setAnnotation, value);
      if (config.addEnv) adjust.addEnv(config.addEnv, value);
      if (config.setEnv) adjust.removeEnv(config.setEnv).addEnv(config.setEnv, value);
      return adjust;
    },
    postCreateContainer(pod, c) {
      dump(log, "PostCreateContainer", ["pod", pod]);
      container("PostCreateContainer", c);
    },
    startContainer(pod, c) {
      dump(log, "StartContainer", ["pod", pod]);
      container("StartContainer", c);
    },
    postStartContainer(pod, c) {
      dump(log, "PostStartContainer", ["pod", pod]);
      container("PostStartContainer", c);
    },
    updateContainer(pod, c, resources) {
      dump(log, "UpdateContainer", ["pod", pod]);
      container("UpdateContainer", c);
      dump(log, "UpdateContainer", ["resources", resources]);
    },
    postUpdateContainer(pod, c) {
      dump(log, "PostUpdateContainer", ["pod", pod]);
      container("PostUpdateContainer", c);
    },
    stopContainer(pod, c) {
      dump(log, "StopContainer", ["pod", pod]);
      container("StopContainer", c);
    },
    removeContainer(pod, c) {
      dump(log, "RemoveContainer", ["pod", pod]);
      container("RemoveContainer", c);
    },
    validateContainerAdjustment(request) {
      dump(log, "ValidateContainerAdjustment", ["request", request]);
    },
  };
}
