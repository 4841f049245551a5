/**
 * What a container's exit code usually means, in plain words for the
 * explanation of an exit: the short description and the signal names are
 * @nri-ts/api's (`describeExitCode`, what a status line shows), the detail
 * is the reporter's.
 */
import { describeExitCode, exitSignal, signalName } from "@nri-ts/api";

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

/** What the codes with a meaning of their own (not a signal) mean, in plain words. */
const CODE_DETAILS: Readonly<Record<number, string>> = {
  0: "the process ended normally",
  1: "the program reported a failure; its log usually says what it was",
  2: "shells and many programs exit 2 on a bad option, argument or script",
  125: "docker and podman exit 125 when they fail themselves, before the command runs",
  126: "the command exists but cannot run: no execute permission, or not a program the kernel can run",
  127: "the command is not in the image or not on its PATH",
  128: "runtimes report 128 for a container whose process could not be started",
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

/**
 * The conventional meaning of an exit code, or undefined when it has none
 * (codes from 3 to 124 mean whatever the program says they mean).
 */
export function explainExitCode(code: number): ExitCodeMeaning | undefined {
  const description = describeExitCode(code);
  if (description === undefined) return undefined;
  const known = CODE_DETAILS[code];
  if (known !== undefined) return { description, detail: known };
  const signal = exitSignal(code)!;
  const name = signalName(signal);
  return {
    description,
    detail:
      SIGNAL_DETAILS[signal] ??
      (signal > 31 ? "a real-time signal, sent on purpose by another process" : `the process got ${name}`),
    signal,
    ...(name && { signalName: name }),
  };
}
