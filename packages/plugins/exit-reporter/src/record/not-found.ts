/**
 * Which command a container could not find, for an exit with code 127.
 * A process that starts and exits 127 is a shell (or a wrapper such as
 * tini) saying it could not find the command it was to run: the runtime
 * itself fails to start a program it cannot find (a start error, 128). So
 * the missing command is the first of the script a shell was given
 * (`sh -c 'migrate-db --all'`), or the program a wrapper was to start.
 * A name without a slash was looked for in the container's PATH; a path
 * was not looked up at all.
 */
import { formatCommand } from "./command.js";

const SHELLS = new Set(["sh", "bash", "ash", "dash", "zsh", "ksh", "mksh", "busybox"]);

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** The first command a shell script runs: its first word that is no variable assignment and no `exec`. */
function firstCommandOf(script: string): string | undefined {
  const words = script.trim().split(/[\s;&|()]+/);
  return words.find((word) => word !== "" && word !== "exec" && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
}

export interface MissingCommand {
  /** The command that was not found, as it was written. */
  program: string;
  /** It is the first command of a `sh -c` script. */
  inScript: boolean;
}

/** The command a 127 is most likely about, if the command line tells. */
export function missingCommand(command: readonly string[]): MissingCommand | undefined {
  const [program, ...args] = command;
  if (!program) return undefined;
  let shell = SHELLS.has(baseName(program)) ? 0 : -1;
  // busybox sh -c …
  if (shell === 0 && baseName(program) === "busybox") shell = SHELLS.has(args[0] ?? "") ? 1 : -1;
  if (shell >= 0) {
    const flag = args.findIndex((arg, i) => i >= shell && /^-[a-z]*c[a-z]*$/.test(arg));
    const script = flag >= 0 ? args[flag + 1] : undefined;
    const first = script === undefined ? undefined : firstCommandOf(script);
    return first ? { program: first, inScript: true } : undefined;
  }
  return { program, inScript: false };
}

/**
 * The clause that says what was not found and where it was looked for:
 * `the container couldn't find the command migrate-db in its PATH
 * (/usr/local/bin:/usr/bin:/bin)`, or `there is no /opt/app/run in the
 * container (a path: PATH is not searched)`.
 */
export function notFoundClause(command: readonly string[], path: string | undefined): string | undefined {
  const missing = missingCommand(command);
  if (!missing) return undefined;
  const what = formatCommand([missing.program]);
  const where = missing.inScript ? " (the first of its script)" : "";
  if (missing.program.includes("/"))
    return `there is no ${what} in the container${where} (a path: PATH is not searched)`;
  const searched =
    path === undefined ? "its PATH (the container sets none, so the shell's default)" : `its PATH (${path})`;
  return `the container couldn't find the command ${what}${where} in ${searched}`;
}
