/**
 * What a container's exit code usually means. Shells and container runtimes
 * report a process killed by signal n as exit code 128 + n; 126 and 127 are
 * the shell's "cannot execute" and "not found".
 */

/** Linux signal numbers 1 to 31 as on x86, ARM and most other architectures (not MIPS, SPARC or Alpha). */
const SIGNAL_NAMES = [
  "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
  "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT",
  "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU",
  "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS",
] as const;

/** The highest Linux signal number (the last real-time signal). */
const MAX_SIGNAL = 64;

const SIGKILL = 9;

export interface ExitCodeMeaning {
  /** e.g. `command not found`, `killed by signal 15 (SIGTERM)`. */
  description: string;
  /** The signal that ended the process, for codes 129 to 192. */
  signal?: number;
  /** Its name, for signals 1 to 31. */
  signalName?: string;
}

/** The name of Linux signal `signal` (1 to 31), e.g. `SIGKILL`. */
export function signalName(signal: number): string | undefined {
  return SIGNAL_NAMES[signal - 1];
}

/**
 * The conventional meaning of an exit code, or undefined when it has none
 * (most codes from 1 to 125 mean whatever the program says they mean).
 */
export function explainExitCode(code: number): ExitCodeMeaning | undefined {
  if (code === 0) return { description: "success" };
  if (code === 126) return { description: "command found but not executable" };
  if (code === 127) return { description: "command not found" };
  const signal = code - 128;
  if (!Number.isInteger(signal) || signal < 1 || signal > MAX_SIGNAL) return undefined;
  const name = signalName(signal);
  const description = `killed by signal ${signal}${name ? ` (${name})` : ""}`;
  return {
    description: signal === SIGKILL ? `${description}, often by the out-of-memory killer` : description,
    signal,
    ...(name && { signalName: name }),
  };
}
