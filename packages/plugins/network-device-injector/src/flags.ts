import { socketFlags } from "@nri-ts/stub";

/** The command line of `nri-network-device-injector`: the Go plugin's flags, with its help texts, and `-socket-path` as an alias of `-socket`. */
export const NETWORK_DEVICE_INJECTOR_FLAGS = [
  { name: "idx", kind: "string", usage: "plugin index to register to NRI" },
  ...socketFlags("socket", "path to NRI socket"),
  { name: "verbose", kind: "bool", usage: "enable (more) verbose logging" },
] as const;
