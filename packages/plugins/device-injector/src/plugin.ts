/**
 * The device-injector plugin: on CreateContainer it injects what the pod's
 * annotations ask for the container (see README). A bad annotation fails
 * that container's creation with the Go plugin's error; the plugin goes on
 * serving every other container.
 */
import type { Logger, Plugin } from "@nri-ts/stub";
import { deviceAdjustment } from "./inject.js";

export interface DeviceInjectorOptions {
  /** Where its lines go; default the stub's logger. */
  logger?: Logger;
}

/** The plugin object for @nri-ts/stub: it handles CreateContainer only. */
export function createDeviceInjector(options: DeviceInjectorOptions = {}): Plugin {
  return {
    createContainer(pod, container, ctx) {
      return deviceAdjustment(pod, container, options.logger ?? ctx.logger);
    },
  };
}
