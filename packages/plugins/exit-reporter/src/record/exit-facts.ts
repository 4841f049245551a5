/**
 * What a container's status fields say about its end, allowing for what
 * real runtimes send: containerd 2.3+ and CRI-O 1.36+ send the times and
 * the exit code but no reason or message; older runtimes send none of it; a
 * zero exit code is absent on the wire (so only a finish time tells a clean
 * exit from an unreported one); a container that failed to start has exit
 * code 128 and no start time; a short container may finish before it
 * started by the runtime's clocks.
 */
import type { Container } from "@nri-ts/api";
import { type ExitCodeMeaning, explainExitCode } from "./exit-code.js";

/** The exit code runtimes give a container whose process could not be started. */
export const START_ERROR_CODE = 128;

export interface ExitFacts {
  /** Undefined when the runtime reported no exit status. */
  exitCode?: number;
  /** The conventional meaning of the code. */
  meaning?: ExitCodeMeaning;
  /** The runtime sent any of the times. */
  timesReported: boolean;
  /** It has a creation or exit time but no start time. */
  neverStarted: boolean;
  /** It never started and got the start-error code (or the runtime said StartError). */
  startError: boolean;
  /** Nanoseconds from start to finish, 0 when the finish is earlier; undefined when either is unknown. */
  runTimeNs?: bigint;
  /** How much earlier than the start the runtime says it finished, when it does. */
  finishedEarlyByNs?: bigint;
}

export function exitFacts(container: Container): ExitFacts {
  const { createdAt, startedAt, finishedAt, exitCode, statusReason } = container;
  const exitKnown = finishedAt !== 0n || exitCode !== 0;
  const timesReported = createdAt !== 0n || startedAt !== 0n || finishedAt !== 0n;
  const neverStarted = startedAt === 0n && (timesReported || exitCode === START_ERROR_CODE);
  const facts: ExitFacts = {
    timesReported,
    neverStarted,
    startError: neverStarted && (exitCode === START_ERROR_CODE || statusReason === "StartError"),
  };
  if (exitKnown) {
    facts.exitCode = exitCode;
    facts.meaning = explainExitCode(exitCode);
  }
  if (startedAt !== 0n && finishedAt !== 0n) {
    facts.runTimeNs = finishedAt >= startedAt ? finishedAt - startedAt : 0n;
    if (finishedAt < startedAt) facts.finishedEarlyByNs = startedAt - finishedAt;
  }
  return facts;
}

/** Whether the cgroup should be asked about an OOM kill: the runtime said nothing, and the end was not clean. */
export function wantsOomCheck(container: Container, facts: ExitFacts): boolean {
  return container.statusReason === "" && !facts.neverStarted && facts.exitCode !== 0;
}
