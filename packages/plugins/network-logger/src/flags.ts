import { socketFlags } from "@nri-ts/stub";

/** The command line of `nri-network-logger`: the Go plugin's flags, with its help texts, and `-socket-path` as an alias of `-socket`. */
export const NETWORK_LOGGER_FLAGS = [
  { name: "idx", kind: "string", usage: "plugin index to register to NRI" },
  ...socketFlags("socket", "path to NRI socket"),
] as const;
