/**
 * The logger's command line: the Go logger's flags, parsed as Go's `flag`
 * package parses them (`-name value`, `-name=value`, `--name value`; `-h`
 * prints the usage).
 */
import { FlagError, type FlagSpec, flagUsage, parseGoFlags, socketFlags } from "@nri-ts/stub";

export { FlagError };

export interface LoggerFlags {
  idx: string;
  socketPath: string;
  events: string;
  logFile: string;
  addAnnotation: string;
  setAnnotation: string;
  addEnv: string;
  setEnv: string;
  statusLines: boolean;
}

const LOGGER_FLAGS = [
  { name: "add-annotation", kind: "string", usage: "add this annotation to containers" },
  { name: "add-env", kind: "string", usage: "add this environment variable for containers" },
  { name: "events", kind: "string", usage: "comma-separated list of events to subscribe for" },
  { name: "idx", kind: "string", usage: "plugin index to register to NRI" },
  { name: "log-file", kind: "string", usage: "logfile name, if logging to a file" },
  { name: "set-annotation", kind: "string", usage: "set this annotation on containers" },
  { name: "set-env", kind: "string", usage: "set this environment variable for containers" },
  {
    name: "status-lines",
    kind: "bool",
    usage: "after each container, log a line with its status (not in the Go logger)",
  },
  ...socketFlags("socket-path", "path of the NRI socket file"),
] as const satisfies readonly FlagSpec[];

export function usage(program: string): string {
  return flagUsage(LOGGER_FLAGS, program);
}

/** @throws FlagError for `-h` (exit code 0) or a bad command line (exit code 2) */
export function parseFlags(argv: readonly string[], program = "nri-logger"): LoggerFlags {
  const flags = parseGoFlags(LOGGER_FLAGS, argv, program);
  return {
    idx: flags.idx,
    socketPath: flags["socket-path"],
    events: flags.events,
    logFile: flags["log-file"],
    addAnnotation: flags["add-annotation"],
    setAnnotation: flags["set-annotation"],
    addEnv: flags["add-env"],
    setEnv: flags["set-env"],
    statusLines: flags["status-lines"],
  };
}
