/**
 * What a container's exit code usually means. Shells and container runtimes
 * report a process killed by signal n as exit code 128 + n; 126 and 127 are
 * the shell's "cannot execute" and "not found"; runtimes report a container
 * that could not start as 128.
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

/** What the signals that commonly end containers mean, in plain words. */
const SIGNAL_DETAILS: Readonly<Record<number, string>> = {
  1: "the terminal or controlling process went away (hang-up)",
  2: "interrupted, as by Ctrl-C",
  3: "asked to quit, possibly dumping core",
  4: "the program ran an illegal instruction",
  6: "the program aborted itself, often on a failed assertion or a fatal library error",
  7: "a bus error (the program accessed memory that cannot be addressed, e.g. a truncated mapped file)",
  8: "an arithmetic error such as an integer division by zero",
  9: "killed outright, often by the out-of-memory killer",
  11: "a segmentation fault (the program accessed memory it may not)",
  13: "the program wrote to a pipe or socket that nobody reads any more",
  14: "a timer the program set went off",
  15: "asked to terminate, as a runtime does when it stops a container",
  24: "the program used more CPU time than its limit",
  25: "the program wrote a file larger than its limit",
  31: "the program made a system call its seccomp profile forbids",
};

/** The codes with a meaning of their own (not a signal). */
const CODES: Readonly<Record<number, { description: string; detail: string }>> = {
  0: { description: "success", detail: "the process ended normally" },
  1: { description: "general error", detail: "the program reported a failure; its log usually says what it was" },
  2: {
    description: "incorrect usage",
    detail: "shells and many programs exit 2 on a bad option, argument or script",
  },
  125: {
    description: "the container runtime failed",
    detail: "docker and podman exit 125 when they fail themselves, before the command runs",
  },
  126: {
    description: "command found but not executable",
    detail: "the command exists but cannot run: no execute permission, or not a program the kernel can run",
  },
  127: {
    description: "command not found",
    detail: "the command is not in the image or not on its PATH",
  },
  128: {
    description: "start error",
    detail: "runtimes report 128 for a container whose process could not be started",
  },
};

export interface ExitCodeMeaning {
  /** Short, for status lines: `command not found`, `killed by signal 15 (SIGTERM)`. */
  description: string;
  /** In plain words, for explanations: `the command is not in the image or not on its PATH`. */
  detail: string;
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
 * (codes from 3 to 124 mean whatever the program says they mean).
 */
export function explainExitCode(code: number): ExitCodeMeaning | undefined {
  const known = CODES[code];
  if (known) return { ...known };
  const signal = code - 128;
  if (!Number.isInteger(signal) || signal < 1 || signal > MAX_SIGNAL) return undefined;
  const name = signalName(signal);
  const description = `killed by signal ${signal}${name ? ` (${name})` : ""}`;
  return {
    description: signal === SIGKILL ? `${description}, often by the out-of-memory killer` : description,
    detail:
      SIGNAL_DETAILS[signal] ??
      (signal > 31 ? "a real-time signal, sent on purpose by another process" : `the process got ${name}`),
    signal,
    ...(name && { signalName: name }),
  };
}
