/**
 * The plain-words explanation of an exit record: one sentence saying what
 * happened, how the reporter knows, and what it could not tell.
 */
import { formatDurationNs } from "@nri-ts/api";
import { formatCommand } from "./command.js";
import type { DeclaredCause } from "./causes.js";
import type { ExitFacts } from "./exit-facts.js";
import { notFoundClause } from "./not-found.js";
import { type OomCheck, OomVerdict, Source } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";

/** Words declared for an exit code, by whom: the pod, a rule (`by` names it), the configuration's table. */
export interface Declared {
  text: string;
  source: Source;
  /** The rule that gave them. */
  by?: string;
}

export interface ExplanationInput {
  facts: ExitFacts;
  /** The cause that applies to this exit, if any. */
  cause?: DeclaredCause;
  /** A meaning declared for the exit code, and by whom. */
  declared?: Declared;
  runtimeReason: string;
  runtimeMessage: string;
  /** The reason the reporter gives itself: a runtime reason equal to it adds nothing. */
  inferredReason: string;
  oom: OomCheck;
  /** The command to quote for failures to run it. */
  command: readonly string[];
  /** The container's PATH, when its environment sets one. */
  path?: string;
}

const SIGKILL_EXIT = 137;
const COMMAND_NOT_FOUND = 127;
const COMMAND_FAILURES = new Set([126, COMMAND_NOT_FOUND]);
const NS_PER_S = 1_000_000_000n;
const NS_PER_MS = 1_000_000n;

/** A run time for people: tenths of seconds from a second up, then milliseconds, then microseconds. */
export function formatRunTime(ns: bigint): string {
  const unit = ns >= NS_PER_S ? NS_PER_S / 10n : ns >= NS_PER_MS ? NS_PER_MS : 1000n;
  return formatDurationNs(((ns + unit / 2n) / unit) * unit);
}

function codeInParens(facts: ExitFacts): string {
  if (facts.exitCode === undefined) return " (the runtime reported no exit code)";
  const signal = facts.meaning?.signalName;
  return ` (exit ${facts.exitCode}${signal ? `, ${signal}` : ""})`;
}

function sigkillClause(oom: OomCheck): string {
  switch (oom.verdict) {
    case OomVerdict.OOM_VERDICT_NOT_FOUND:
      return `killed by SIGKILL (exit 137), not by the out-of-memory killer: ${oom.evidence}`;
    case OomVerdict.OOM_VERDICT_UNKNOWN:
      return `killed by SIGKILL (exit 137) (OOM not confirmed: ${oom.evidence})`;
    default:
      // Not checked: the runtime gave a reason of its own, and it is not OOMKilled.
      return "killed by SIGKILL (exit 137), and the runtime does not call it an OOM kill";
  }
}

/** The main clause, and whether it already told what the runtime said. */
function mainClause(input: ExplanationInput): { text: string; toldRuntime: boolean } {
  const { facts, cause, declared, runtimeReason, runtimeMessage, oom } = input;
  const code = facts.exitCode;
  if (cause) {
    const who =
      cause.source === Source.SOURCE_PLUGIN ? `stopped by plugin ${cause.declaredBy}` : "ended as the pod declares";
    return { text: `${who}: ${cause.message || cause.reason}${codeInParens(facts)}`, toldRuntime: false };
  }
  if (facts.startError) {
    const why = runtimeMessage ? `: ${runtimeMessage}` : "; the runtime sent no message saying why";
    return { text: `failed to start (exit ${code ?? "unknown"})${why}`, toldRuntime: runtimeMessage !== "" };
  }
  if (facts.neverStarted && code === undefined) return { text: "stopped before it started", toldRuntime: false };
  if (runtimeReason === "OOMKilled") {
    const message = runtimeMessage ? `: ${runtimeMessage}` : "";
    return {
      text: `killed by the out-of-memory killer${codeInParens(facts)}, as the runtime reports${message}`,
      toldRuntime: true,
    };
  }
  if (oom.verdict === OomVerdict.OOM_VERDICT_CONFIRMED && (code === SIGKILL_EXIT || code === undefined)) {
    return {
      text: `killed by the out-of-memory killer${codeInParens(facts)}, confirmed by ${oom.evidence}`,
      toldRuntime: false,
    };
  }
  if (code === undefined) {
    return {
      text: "ended, but the runtime reported no exit code (runtimes before containerd 2.3 and CRI-O 1.36 do not)",
      toldRuntime: false,
    };
  }
  if (code === 0) return { text: "exited normally (code 0)", toldRuntime: false };
  if (declared) {
    const by =
      declared.source === Source.SOURCE_POD
        ? "as the pod declares"
        : declared.by
          ? `as the reporter's rule ${declared.by} says`
          : "as the reporter's configuration says";
    return { text: `exited with code ${code}: ${declared.text} (${by})`, toldRuntime: false };
  }
  const meaning = facts.meaning;
  if (meaning?.signal !== undefined) {
    const name = meaning.signalName ?? `signal ${meaning.signal}`;
    if (code === SIGKILL_EXIT) {
      return { text: sigkillClause(oom), toldRuntime: false };
    }
    return { text: `killed by ${name} (exit ${code}): ${meaning.detail}`, toldRuntime: false };
  }
  const notFound = code === COMMAND_NOT_FOUND ? notFoundClause(input.command, input.path) : undefined;
  if (meaning)
    return {
      text: `exited with code ${code} (${meaning.description}): ${notFound ?? meaning.detail}`,
      toldRuntime: false,
    };
  return {
    text: `exited with code ${code}, which only the program can explain (no meaning is declared for it)`,
    toldRuntime: false,
  };
}

export function explainExit(input: ExplanationInput): string {
  const { facts, runtimeReason, runtimeMessage, oom } = input;
  const { text, toldRuntime } = mainClause(input);
  const parts = [text];
  if (!toldRuntime && (runtimeMessage || (runtimeReason && runtimeReason !== input.inferredReason))) {
    parts.push(`the runtime says ${[runtimeReason, runtimeMessage].filter(Boolean).join(": ")}`);
  }
  const code = facts.exitCode;
  if (oom.verdict === OomVerdict.OOM_VERDICT_CONFIRMED && code !== SIGKILL_EXIT && code !== undefined && !input.cause) {
    parts.push(`a process in it was OOM-killed, confirmed by ${oom.evidence}`);
  }
  if (input.command.length > 0 && (facts.startError || (code !== undefined && COMMAND_FAILURES.has(code)))) {
    parts.push(`command: ${formatCommand(input.command)}`);
  }
  if (facts.finishedEarlyByNs !== undefined) {
    parts.push(
      `ran for 0s (the runtime's finish time is ${formatRunTime(facts.finishedEarlyByNs)} before its start time)`,
    );
  } else if (facts.runTimeNs !== undefined) {
    parts.push(`ran for ${formatRunTime(facts.runTimeNs)}`);
  }
  return parts.join("; ");
}
