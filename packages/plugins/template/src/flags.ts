/** The command line of `nri-template`: the Go template's flags, with its help texts. */
export const TEMPLATE_FLAGS = [
  { name: "name", kind: "string", usage: "plugin name to register to NRI" },
  { name: "idx", kind: "string", usage: "plugin index to register to NRI" },
  { name: "socket", kind: "string", usage: "path to the plugin socket" },
] as const;
