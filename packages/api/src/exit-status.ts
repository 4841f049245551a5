/**
 * What a container's exit code says in a status line (`describeContainerStatus`).
 * Shells and container runtimes report a process killed by signal n as exit
 * code 128 + n; 126 and 127 are the shell's "cannot execute" and "not
 * found"; runtimes report a container that could not start as 128.
 */

/** Linux signal numbers 1 to 31 as on x86, ARM and most other architectures (not MIPS, SPARC or Alpha). */
const SIGNAL_NAMES = [
  "SIGHUP",
  "SIGINT",
  "SIGQUIT",
  "SIGILL",
  "SIGTRAP",
  "SIGABRT",
  "SIGBUS",
  "SIGFPE",
  "SIGKILL",
  "SIGUSR1",
  "SIGSEGV",
  "SIGUSR2",
  "SIGPIPE",
  "SIGALRM",
  "SIGTERM",
  "SIGSTKFLT",
  "SIGCHLD",
  "SIGCONT",
  "SIGSTOP",
  "SIGTSTP",
  "SIGTTIN",
  "SIGTTOU",
  "SIGURG",
  "SIGXCPU",
  "SIGXFSZ",
  "SIGVTALRM",
  "SIGPROF",
  "SIGWINCH",
  "SIGIO",
  "SIGPWR",
  "SIGSYS",
] as const;

/** The highest Linux signal number (the last real-time signal). */
const MAX_SIGNAL = 64;

const SIGKILL = 9;

/** The codes with a meaning of their own (not a signal). */
const CODES: Readonly<Record<number, string>> = {
  0: "success",
  1: "general error",
  2: "incorrect usage",
  125: "the container runtime failed",
  126: "command found but not executable",
  127: "command not found",
  128: "start error",
};

/** The name of Linux signal `signal` (1 to 31), e.g. `SIGKILL`. */
export function signalName(signal: number): string | undefined {
  return SIGNAL_NAMES[signal - 1];
}

/** The signal an exit code says ended the process (codes 129 to 192), or undefined. */
export function exitSignal(code: number): number | undefined {
  const signal = code - 128;
  return Number.isInteger(signal) && signal >= 1 && signal <= MAX_SIGNAL ? signal : undefined;
}

/**
 * The conventional meaning of an exit code, short, as a status line shows
 * it (`command not found`, `killed by signal 15 (SIGTERM)`), or undefined
 * when it has none (codes from 3 to 124 mean whatever the program says).
 */
export function describeExitCode(code: number): string | undefined {
  const known = CODES[code];
  if (known !== undefined) return known;
  const signal = exitSignal(code);
  if (signal === undefined) return undefined;
  const name = signalName(signal);
  const description = `killed by signal ${signal}${name ? ` (${name})` : ""}`;
  return signal === SIGKILL ? `${description}, often by the out-of-memory killer` : description;
}
