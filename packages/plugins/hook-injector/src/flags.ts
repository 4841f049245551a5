import { socketFlags } from "@nri-ts/stub";
import { HOOKS_DIRS } from "./hook-dirs.js";

/** The command line of `nri-hook-injector`: the Go plugin's flags with its help texts, `-socket` as an alias of `-socket-path`, and `-hooks-dirs` (ours). */
export const HOOK_INJECTOR_FLAGS = [
  { name: "idx", kind: "string", usage: "plugin index to register to NRI" },
  ...socketFlags("socket-path", "path of the NRI socket file"),
  { name: "verbose", kind: "bool", usage: "enable (more) verbose logging" },
  { name: "disableWatch", kind: "bool", usage: "disable watching hook directories for new hooks" },
  {
    name: "hooks-dirs",
    kind: "string",
    usage: `comma-separated hook directories, lowest precedence first (default "${HOOKS_DIRS.join(",")}")`,
  },
] as const;
