import type { Plugin } from "@nri-ts/stub";
import { createNetworkLogger } from "./network-logger.js";

export {
  createNetworkLogger,
  HOST_NETWORK,
  ipList,
  type NetworkLoggerOptions,
  networkNamespace,
} from "./network-logger.js";

/** The network-logger for `nri-sim --plugin`; it takes no configuration. */
export function plugin(): Plugin {
  return createNetworkLogger();
}
