import { socketFlags } from "@nri-ts/stub";

/** The command line of `nri-device-injector`: the Go plugin's flags, with its help texts, and `-socket` as an alias of `-socket-path`. */
export const DEVICE_INJECTOR_FLAGS = [
  { name: "idx", kind: "string", usage: "plugin index to register to NRI" },
  ...socketFlags("socket-path", "path of the NRI socket file"),
  { name: "verbose", kind: "bool", usage: "enable (more) verbose logging" },
] as const;
