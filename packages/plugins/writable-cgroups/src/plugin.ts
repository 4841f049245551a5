/**
 * The writable-cgroups plugin: on CreateContainer it makes `/sys/fs/cgroup`
 * read-write in containers annotated `writable-cgroups.noderesource.dev:
 * "true"`, when the host's cgroup mount has `nsdelegate`.
 */
import type { Logger, Plugin } from "@nri-ts/stub";
import { writableCgroupsAdjustment } from "./writable-cgroups.js";

export interface WritableCgroupsOptions {
  /** Whether the host's cgroup v2 mount has `nsdelegate` (see `hostHasNsDelegate`); without it nothing is changed. */
  hostNsDelegate: boolean;
  /** Where its lines go; default the stub's logger. */
  logger?: Logger;
}

/** The plugin object for @nri-ts/stub: it handles CreateContainer only. */
export function createWritableCgroups(options: WritableCgroupsOptions): Plugin {
  return {
    createContainer(pod, container, ctx) {
      const base = options.logger ?? ctx.logger;
      const logger = base.child?.({ container: container.name, pod: pod.name, namespace: pod.namespace }) ?? base;
      logger.debug("Started CreateContainer");
      return writableCgroupsAdjustment({ pod, container, hostNsDelegate: options.hostNsDelegate }, logger);
    },
  };
}
