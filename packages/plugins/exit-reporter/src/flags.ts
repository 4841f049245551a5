/**
 * `nri-exit-reporter`'s command line, parsed as Go's `flag` package parses
 * it, like the other reference plugins' (`-idx 90`, `-idx=90`, `--idx 90`);
 * `-socket` is an alias of `-socket-path`.
 */
import { type FlagSpec, flagUsage, parseGoFlags, socketFlags } from "@nri-ts/stub";

export const REPORTER_FLAGS = [
  { name: "config", kind: "string", usage: "YAML configuration file, used when the runtime sends no configuration" },
  { name: "idx", kind: "string", usage: "plugin index to register to NRI (default 90)" },
  { name: "name", kind: "string", usage: "plugin name to register to NRI (default exit-reporter)" },
  ...socketFlags("socket-path", "path of the NRI socket file"),
  { name: "verbose", kind: "bool", usage: "log debug messages too" },
] as const satisfies readonly FlagSpec[];

export const DEFAULT_NAME = "exit-reporter";
export const DEFAULT_INDEX = "90";
/**
 * What the program asks runtimes (NRI v0.12.4+) to do when it fails a
 * request: go on without its answer, and keep it registered.
 */
export const FAILURE_POLICY = { failRequest: false, keepConnected: true } as const;

export function usage(program = "nri-exit-reporter"): string {
  return flagUsage(REPORTER_FLAGS, program);
}

/** @throws FlagError for `-h` (exit code 0) or a bad command line (exit code 2) */
export function parseFlags(argv: readonly string[], program = "nri-exit-reporter") {
  return parseGoFlags(REPORTER_FLAGS, argv, program);
}
