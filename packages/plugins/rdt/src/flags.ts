import { socketFlags } from "@nri-ts/stub";

/**
 * The command line of `nri-rdt`: the Go plugin's flags (`-idx`, `-verbose`)
 * with its help texts, and `-socket` (`-socket-path`), which the Go plugin
 * lacks (it always uses the default socket).
 */
export const RDT_FLAGS = [
  { name: "idx", kind: "string", usage: "plugin index to register to NRI" },
  { name: "verbose", kind: "bool", usage: "enable verbose logging" },
  ...socketFlags("socket", "path to the NRI socket"),
] as const;
