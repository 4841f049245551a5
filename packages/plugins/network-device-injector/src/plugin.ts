/**
 * The network-device-injector plugin: when a pod's sandbox starts it moves
 * the host links its annotation names into the pod's network namespace,
 * and when the sandbox stops it moves them back (see README). As in the Go
 * plugin, a bad annotation, or one on a pod of the host's network, fails
 * the sandbox's start with the Go plugin's error; a device that cannot be
 * moved does not, it ends the moving (later devices stay where they are)
 * and is logged.
 */
import type { PodSandbox } from "@nri-ts/api";
import type { Logger, Plugin } from "@nri-ts/stub";
import { parseNetDevices } from "./annotations.js";
import { NetworkNamespace } from "./links.js";
import { moveLinkIn, moveLinkOut } from "./move.js";

/** The path of the pod's network namespace; "" for a pod on the host's network. */
export function podNetworkNamespace(pod: PodSandbox): string {
  return pod.linux?.namespaces.find((ns) => ns.type === "network")?.path ?? "";
}

export interface NetworkDeviceInjectorOptions {
  /** Where its lines go; default the stub's logger. */
  logger?: Logger;
  /** Where the links are taken from and given back to; default the plugin's own network namespace. */
  host?: NetworkNamespace;
}

const fields = (pod: PodSandbox) => ({ namespace: pod.namespace, name: pod.name });

/** The plugin object for @nri-ts/stub: it handles RunPodSandbox and StopPodSandbox. */
export function createNetworkDeviceInjector(options: NetworkDeviceInjectorOptions = {}): Plugin {
  const host = options.host ?? new NetworkNamespace();
  return {
    async runPodSandbox(pod, ctx) {
      const logger = options.logger ?? ctx.logger;
      logger.debug(fields(pod), "Started pod...");
      const devices = parseNetDevices(pod.annotations);
      if (devices.length === 0) return;
      const path = podNetworkNamespace(pod);
      if (path === "") {
        logger.info(fields(pod), "Pod using host namespace, skipping ...");
        throw new Error("trying to inject network device on host network Pod");
      }
      const netns = new NetworkNamespace(path);
      for (const device of devices) {
        try {
          await moveLinkIn(netns, device.name, device.new_name, host);
          logger.debug(fields(pod), `Injected network device ${device.name} as ${device.new_name}`);
        } catch (error) {
          logger.error(
            fields(pod),
            `Failed to inject network device ${device.name}, leaving the rest: ${(error as Error).message}`,
          );
          return;
        }
      }
    },
    async stopPodSandbox(pod, ctx) {
      const logger = options.logger ?? ctx.logger;
      logger.debug(fields(pod), "Stopped pod...");
      const devices = parseNetDevices(pod.annotations);
      if (devices.length === 0) return;
      const path = podNetworkNamespace(pod);
      if (path === "") return;
      const netns = new NetworkNamespace(path);
      for (const device of devices) {
        try {
          await moveLinkOut(netns, device.new_name, host);
          logger.debug(fields(pod), `Released network device ${device.new_name}`);
        } catch (error) {
          logger.error(
            fields(pod),
            `Failed to release network device ${device.new_name}, leaving the rest: ${(error as Error).message}`,
          );
          return;
        }
      }
    },
  };
}
