/**
 * The ulimit-adjuster plugin: on CreateContainer it sets the rlimits that
 * the pod's annotation `ulimits.noderesource.dev/container.<name>` (or the
 * legacy `ulimits.nri.containerd.io/container.<name>`) lists. A bad
 * annotation fails that container's creation, with the Go plugin's error.
 */
import type { Logger, Plugin } from "@nri-ts/stub";
import { adjustUlimits, parseUlimits } from "./ulimits.js";

export interface UlimitAdjusterOptions {
  /** Where its debug lines go; default the stub's logger (the one `runPlugin` was given). */
  logger?: Logger;
}

/** The plugin object for @nri-ts/stub: it handles CreateContainer only. */
export function createUlimitAdjuster(options: UlimitAdjusterOptions = {}): Plugin {
  return {
    createContainer(pod, container, ctx) {
      const base = options.logger ?? ctx.logger;
      const logger = base.child?.({ pod: pod.name, container: container.name }) ?? base;
      logger.debug("create container");
      let ulimits;
      try {
        ulimits = parseUlimits(container.name, pod.annotations, logger);
      } catch (error) {
        logger.debug({ error: (error as Error).message }, "failed to parse annotations");
        throw error;
      }
      return adjustUlimits(ulimits, logger);
    },
  };
}
