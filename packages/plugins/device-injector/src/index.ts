import type { Plugin } from "@nri-ts/stub";
import { createDeviceInjector } from "./plugin.js";

export { type AnnotationKind, annotationKeys, annotationValue, KINDS } from "./annotations.js";
export { deviceAdjustment, type Log } from "./inject.js";
export {
  type Annotations,
  type Device,
  DeviceInjectorError,
  type IoPriority,
  type MemoryPolicy,
  type Mount,
  type NetDevice,
  parseCdiDevices,
  parseDevices,
  parseIoPriority,
  parseMemoryPolicy,
  parseMounts,
  parseNetDevices,
  parseScheduler,
  parseSysctl,
  type Scheduler,
} from "./parse.js";
export { createDeviceInjector, type DeviceInjectorOptions } from "./plugin.js";

/** The device-injector for `nri-sim --plugin`; it takes no configuration. */
export function plugin(): Plugin {
  return createDeviceInjector();
}
