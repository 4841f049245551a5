/**
 * The network-logger plugin: it logs the pods' IPs and network namespaces
 * when the runtime synchronizes with it and when pods start, stop and are
 * removed, with the Go plugin's messages. It changes nothing and never
 * fails a request.
 */
import type { PodSandbox } from "@nri-ts/api";
import type { Logger, Plugin } from "@nri-ts/stub";

/** What a pod without a network namespace of its own (on the host's network) shows. */
export const HOST_NETWORK = "<host-network>";

/** The path of the pod's network namespace, or `<host-network>`. */
export function networkNamespace(pod: PodSandbox): string {
  return pod.linux?.namespaces.find((ns) => ns.type === "network")?.path ?? HOST_NETWORK;
}

/** The pod's IPs as Go's `%v` prints a list: `[10.0.0.1 fd00::1]`. */
export function ipList(pod: PodSandbox): string {
  return `[${pod.ips.join(" ")}]`;
}

const podName = (pod: PodSandbox) => `${pod.namespace}/${pod.name}`;

export interface NetworkLoggerOptions {
  /** Where its lines go; default the stub's logger. */
  logger?: Logger;
}

/** The plugin object for @nri-ts/stub: RunPodSandbox, StopPodSandbox and RemovePodSandbox, plus Synchronize and Shutdown. */
export function createNetworkLogger(options: NetworkLoggerOptions = {}): Plugin {
  return {
    synchronize(pods, containers, ctx) {
      const logger = options.logger ?? ctx.logger;
      logger.info(`Synchronized state with the runtime (${pods.length} pods, ${containers.length} containers)...`);
      for (const pod of pods) logger.info(`pod ${podName(pod)}: namespace=${networkNamespace(pod)} ips=${ipList(pod)}`);
    },
    shutdown(ctx) {
      (options.logger ?? ctx.logger).info("Runtime shutting down...");
    },
    runPodSandbox(pod, ctx) {
      (options.logger ?? ctx.logger).info(
        `Started pod ${podName(pod)}: namespace=${networkNamespace(pod)} ips=${ipList(pod)}`,
      );
    },
    stopPodSandbox(pod, ctx) {
      (options.logger ?? ctx.logger).info(`Stopped pod ${podName(pod)}: ips=${ipList(pod)}`);
    },
    removePodSandbox(pod, ctx) {
      (options.logger ?? ctx.logger).info(`Removed pod ${podName(pod)}: ips=${ipList(pod)}`);
    },
  };
}
