/** The command line of `nri-network-logger`: the Go plugin's flags, with its help texts. */
export const NETWORK_LOGGER_FLAGS = [
  { name: "idx", kind: "string", usage: "plugin index to register to NRI" },
  { name: "socket", kind: "string", usage: "path to NRI socket" },
] as const;
