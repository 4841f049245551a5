import { socketFlags } from "@nri-ts/stub";

/** The command line of `nri-template`: the Go template's flags, with its help texts, and `-socket-path` as an alias of `-socket`. */
export const TEMPLATE_FLAGS = [
  { name: "name", kind: "string", usage: "plugin name to register to NRI" },
  { name: "idx", kind: "string", usage: "plugin index to register to NRI" },
  ...socketFlags("socket", "path to the plugin socket"),
] as const;
