import type { Plugin } from "@nri-ts/stub";
import { createNetworkDeviceInjector } from "./plugin.js";

export {
  ANNOTATION_KEYS,
  type NetDevice,
  NetDeviceAnnotationError,
  NETDEVICE_KEY,
  netDeviceAnnotation,
  OLD_NETDEVICE_KEY,
  parseNetDevices,
} from "./annotations.js";
export { isGoIP } from "./go-ip.js";
export { type Link, LinkError, NetworkNamespace } from "./links.js";
export { moveLinkIn, moveLinkOut } from "./move.js";
export { createNetworkDeviceInjector, type NetworkDeviceInjectorOptions, podNetworkNamespace } from "./plugin.js";

/** The network-device-injector for `nri-sim --plugin`; it takes no configuration. */
export function plugin(): Plugin {
  return createNetworkDeviceInjector();
}
