/**
 * The rdt plugin: on CreateContainer it sets the container's Intel RDT
 * class, schemata and monitoring from the pod's annotations. A bad
 * `enablemonitoring` value fails that container's creation.
 */
import type { Logger, Plugin } from "@nri-ts/stub";
import { adjustRdt } from "./rdt.js";

export interface RdtOptions {
  /** Where its lines go; default the stub's logger. */
  logger?: Logger;
}

/** The plugin object for @nri-ts/stub: it handles CreateContainer only. */
export function createRdtPlugin(options: RdtOptions = {}): Plugin {
  return {
    createContainer(pod, container, ctx) {
      const base = options.logger ?? ctx.logger;
      const logger = base.child?.({ namespace: pod.namespace, pod: pod.name, container: container.name }) ?? base;
      logger.debug("Create container");
      return adjustRdt(container.name, pod.annotations, logger);
    },
  };
}
