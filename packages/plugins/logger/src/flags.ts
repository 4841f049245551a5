/**
 * The logger's command line, parsed as Go's `flag` package parses it:
 * `-name value`, `-name=value`, `--name value`; `-h` prints the usage.
 */

export interface LoggerFlags {
  idx: string;
  socketPath: string;
  events: string;
  logFile: string;
  addAnnotation: string;
  setAnnotation: string;
  addEnv: string;
  setEnv: string;
}

const FLAGS: readonly [string, keyof LoggerFlags, string][] = [
  ["add-annotation", "addAnnotation", "add this annotation to containers"],
  ["add-env", "addEnv", "add this environment variable for containers"],
  ["events", "events", "comma-separated list of events to subscribe for"],
  ["idx", "idx", "plugin index to register to NRI"],
  ["log-file", "logFile", "logfile name, if logging to a file"],
  ["set-annotation", "setAnnotation", "set this annotation on containers"],
  ["set-env", "setEnv", "set this environment variable for containers"],
  ["socket-path", "socketPath", "path of the NRI socket file"],
];

/** `-h`, or a flag that is not known: print the usage and exit (0 for `-h`, 2 otherwise). */
export class FlagError extends Error {
  override readonly name = "FlagError";

  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

export function usage(program: string): string {
  const lines = [`Usage of ${program}:`];
  for (const [flag, , help] of FLAGS) lines.push(`  -${flag} string`, `    \t${help}`);
  return lines.join("\n");
}

export function parseFlags(argv: readonly string[], program = "nri-logger"): LoggerFlags {
  const flags: LoggerFlags = {
    idx: "",
    socketPath: "",
    events: "",
    logFile: "",
    addAnnotation: "",
    setAnnotation: "",
    addEnv: "",
    setEnv: "",
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--" ) break;
    if (!arg.startsWith("-") || arg === "-") break;
    const body = arg.replace(/^--?/, "");
    const eq = body.indexOf("=");
    const name = eq < 0 ? body : body.slice(0, eq);
    if (name === "h" || name === "help") throw new FlagError(usage(program), 0);
    const flag = FLAGS.find(([known]) => known === name);
    if (!flag) throw new FlagError(`flag provided but not defined: -${name}\n${usage(program)}`, 2);
    let value: string;
    if (eq >= 0) value = body.slice(eq + 1);
    else if (i + 1 < argv.length) value = argv[++i];
    else throw new FlagError(`flag needs an argument: -${name}\n${usage(program)}`, 2);
    flags[flag[1]] = value;
  }
  return flags;
}
